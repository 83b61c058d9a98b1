// The project a command is about, and the .gitignore ai-zen keeps in it. Shared by `ai-zen`
// (open-project.ts) and `ai-zen-daemon`, which must agree on the root; kept small so the daemon
// does not load the agent stack to find it.
import { promises as fs } from 'node:fs';
import { AiZenError } from '../errors.js';
import type { Env } from '../paths.js';
import { runProcess } from '../run-process.js';

/** `git rev-parse --show-toplevel` from `cwd`, else `cwd` — as a real path either way. */
export async function findProjectRoot(cwd: string, env: Env = process.env): Promise<string> {
  const real = await fs.realpath(cwd).catch((error: unknown) => {
    throw new AiZenError('usage', `cannot open the working folder ${cwd} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  });
  // Not a git repository, or no git: the working folder is the project.
  const git = await runProcess('git', ['rev-parse', '--show-toplevel'], { cwd: real, env: { ...env, GIT_OPTIONAL_LOCKS: '0' } });
  const top = git.exitCode === 0 ? git.stdout.trim() : '';
  if (top !== '') return await fs.realpath(top).catch(() => real);
  return real;
}

export { ensureGitignore } from '../fs/project-gitignore.js';
