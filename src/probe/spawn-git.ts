// git for the handoff committer: runGit with stdin (spawnGit), and a long-lived git with its pipes
// open (startGit, for `update-ref --stdin`). Both through the one process runner, which reports a
// git's exit as soon as it closes its pipes (simple-git, used before, waited 50 ms after a git that
// printed nothing; the committer runs a dozen short gits per commit, some while the index is locked).
import type { Env } from '../paths.js';
import { type PipedProcess, startPipedProcess } from '../run-process.js';
import { gitEnvironment } from './git-environment.js';
import { type GitRun, type RunGitOptions, runGit } from './run-git.js';

export type SpawnGitOptions = RunGitOptions;

export function spawnGit(cwd: string, args: readonly string[], options: SpawnGitOptions = {}): Promise<GitRun> {
  return runGit(cwd, args, options);
}

/** A git process with its pipes open, in ai-zen's git environment. */
export function startGit(cwd: string, args: readonly string[], env?: Env, extraEnv?: Env): PipedProcess {
  return startPipedProcess('git', args, { cwd, env: gitEnvironment(env, extraEnv) });
}
