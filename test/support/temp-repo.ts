// Real git repositories in the OS temp folder, each with its own AI_ZEN_HOME, removed after
// the test (`await using repo = await makeTempRepo()`).
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TempRepo {
  /** Real path of the repository root (symlinks such as macOS /tmp resolved). */
  readonly root: string;
  /** A temp folder to use as AI_ZEN_HOME. */
  readonly home: string;
  /** Runs git in the root; resolves with stdout. */
  git(...args: string[]): Promise<string>;
  cleanup(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

// Git must not read the developer's config or prompt for anything.
function gitEnv(home: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: path.join(home, 'gitconfig'),
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: undefined,
    GIT_AUTHOR_EMAIL: undefined,
    GIT_COMMITTER_NAME: undefined,
    GIT_COMMITTER_EMAIL: undefined,
  };
}

export async function makeTempRepo(options: { git?: boolean; commit?: boolean } = {}): Promise<TempRepo> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-test-')));
  const root = path.join(base, 'repo');
  const home = path.join(base, 'home');
  await fs.mkdir(root);
  await fs.mkdir(home);
  const env = gitEnv(home);
  const git = async (...args: string[]): Promise<string> => {
    const { stdout } = await run('git', args, { cwd: root, env, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  };
  if (options.git !== false) {
    await git('init', '-q', '-b', 'main');
    await git('config', 'user.name', 'ai-zen test');
    await git('config', 'user.email', 'test@ai-zen.invalid');
    await git('config', 'commit.gpgsign', 'false');
    if (options.commit !== false) {
      await fs.writeFile(path.join(root, 'README.md'), '# test repo\n');
      await git('add', 'README.md');
      await git('commit', '-q', '-m', 'initial commit');
    }
  }
  let cleaned = false;
  const cleanup = async (): Promise<void> => {
    if (cleaned) return;
    cleaned = true;
    await fs.rm(base, { recursive: true, force: true, maxRetries: 3 });
  };
  return { root, home, git, cleanup, [Symbol.asyncDispose]: cleanup };
}
