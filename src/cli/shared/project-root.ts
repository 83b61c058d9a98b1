// The project a command is about, and the .gitignore ai-zen keeps in it. Shared by `ai-zen`
// (open-project.ts) and `ai-zen-daemon`, which must agree on the root; kept small so the daemon
// does not load the agent stack to find it.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { AiZenError } from '../../errors.js';
import type { Env } from '../../paths.js';
import { runProcess } from '../../run-process.js';

/** `git rev-parse --show-toplevel` from `cwd`, else `cwd` — as a real path either way. */
export async function findProjectRoot(cwd: string, env: Env = process.env): Promise<string> {
  const real = await fs.realpath(cwd).catch((error: unknown) => {
    throw new AiZenError('usage', `cannot open the working folder ${cwd} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  });
  // Not a git repository, or no git: the working folder is the project.
  const git = await runProcess('git', ['rev-parse', '--show-toplevel'], { cwd: real, env: { ...env, GIT_OPTIONAL_LOCKS: '0' } });
  const top = git.exitCode === 0 ? git.stdout.trim() : '';
  if (top !== '') {
    const root = await fs.realpath(top).catch(() => real);
    // A crafted .git (core.worktree in a gitdir it names) can make another repo the top level: ai-zen would then
    // act there, on that repo's trust, for a folder that is not part of it.
    if (real !== root && !real.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`))
      throw new AiZenError(
        'usage',
        `${real} is not inside the working tree its .git names (${root}): ai-zen works only in a folder of the repository it belongs to; run it in ${root} if that is the one meant`,
      );
    return root;
  }
  await refuseGitDir(real, env);
  return real;
}

/**
 * A bare repository, or a folder inside a `.git`, has no working tree: nothing there is worked on,
 * and sessions, logs and documents written into it would land among git's own files.
 */
async function refuseGitDir(folder: string, env: Env): Promise<void> {
  const git = await runProcess('git', ['rev-parse', '--is-bare-repository', '--is-inside-git-dir'], {
    cwd: folder,
    env: { ...env, GIT_OPTIONAL_LOCKS: '0' },
  });
  if (git.exitCode !== 0) return;
  const [bare, insideGitDir] = git.stdout.trim().split('\n');
  if (bare === 'true' || insideGitDir === 'true') {
    const what = bare === 'true' ? 'a bare git repository' : "inside a repository's .git folder";
    throw new AiZenError('usage', `${folder} is ${what}, with no working tree to work in: run this in a clone with a working tree`);
  }
}

export { ensureGitignore } from '../../fs/project-gitignore.js';
