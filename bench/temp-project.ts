// A throw-away project for one benchmark item: a real git repository (optional) in the OS temp
// folder, with its own AI_ZEN_HOME and XDG_RUNTIME_DIR so a daemon started in it touches nothing
// of the user's, and an environment with no model configured (X1: the offline executor).
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface BenchProject {
  readonly root: string;
  readonly home: string;
  readonly runtime: string;
  /** For the daemon and git: temp home and runtime folder, no model, no user git config. */
  readonly env: NodeJS.ProcessEnv;
  git(...args: string[]): Promise<string>;
  cleanup(): Promise<void>;
}

export async function makeBenchProject(name: string, options: { git?: boolean } = {}): Promise<BenchProject> {
  // Short base name: the daemon's socket path must stay under ~100 bytes.
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), `azb-${name}-`)));
  const root = path.join(base, 'repo');
  const home = path.join(base, 'home');
  const runtime = path.join(base, 'run');
  await fs.mkdir(root);
  await fs.mkdir(home);
  await fs.mkdir(runtime, { mode: 0o700 });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AI_ZEN_HOME: home,
    XDG_RUNTIME_DIR: runtime,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: path.join(home, 'gitconfig'),
    GIT_TERMINAL_PROMPT: '0',
  };
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'AI_ZEN_MODEL', 'AI_ZEN_TEST_PAUSE_AT']) delete env[key];
  const git = async (...args: string[]): Promise<string> => {
    const { stdout } = await run('git', args, { cwd: root, env, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  };
  if (options.git !== false) {
    await git('init', '-q', '-b', 'main');
    await git('config', 'user.name', 'ai-zen bench');
    await git('config', 'user.email', 'bench@ai-zen.invalid');
    await git('config', 'commit.gpgsign', 'false');
    await fs.writeFile(path.join(root, 'README.md'), '# bench repo\n');
    await git('add', 'README.md');
    await git('commit', '-q', '-m', 'initial commit');
  }
  let cleaned = false;
  return {
    root,
    home,
    runtime,
    env,
    git,
    async cleanup() {
      if (cleaned) return;
      cleaned = true;
      await fs.rm(base, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}
