// The project a command is about, and the .gitignore ai-zen keeps in it. Shared by `ai-zen`
// (open-project.ts) and `ai-zen-daemon`, which must agree on the root; kept small so the daemon
// does not load the agent stack to find it.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { AiZenError } from '../errors.js';
import { writeFileInside } from '../fs/safe-write.js';
import type { Logger } from '../log/logger.js';
import type { Env, ProjectPaths } from '../paths.js';

const run = promisify(execFile);

/** `git rev-parse --show-toplevel` from `cwd`, else `cwd` — as a real path either way. */
export async function findProjectRoot(cwd: string, env: Env = process.env): Promise<string> {
  const real = await fs.realpath(cwd).catch((error: unknown) => {
    throw new AiZenError('usage', `cannot open the working folder ${cwd} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  });
  try {
    const { stdout } = await run('git', ['rev-parse', '--show-toplevel'], { cwd: real, env: { ...env, GIT_OPTIONAL_LOCKS: '0' } });
    const top = stdout.trim();
    if (top !== '') return await fs.realpath(top);
  } catch {
    // Not a git repository, or no git: the working folder is the project.
  }
  return real;
}

// Sessions and logs are this machine's; handoff documents are meant to be reviewed and committed.
const GITIGNORE = `# Written by ai-zen. Sessions and logs stay local; handoffs/ is meant to be committed.
sessions/
logs/
latest-session.json
`;

/** Writes `.ai-zen/.gitignore` once (never over the user's). Also used by `ai-zen-daemon start`. */
export async function ensureGitignore(paths: ProjectPaths, logger: Pick<Logger, 'warn'>): Promise<void> {
  try {
    await writeFileInside(paths.root, path.join(paths.aiZen, '.gitignore'), GITIGNORE, { exclusive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') logger.warn({ err: error }, 'could not write .ai-zen/.gitignore');
  }
}
