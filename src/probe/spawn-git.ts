// git spawned directly, for the handoff committer. simple-git (run-git.ts) waits 50 ms after a
// git that printed nothing before it reports the exit; the committer runs a dozen short git
// processes per commit, some of them while the user's index is locked, so it cannot pay that.
// Same result shape as runGit, plus what runGit cannot do: stdin, and a long-lived git.
import type { Env } from '../paths.js';
import { type PipedProcess, runProcess, startPipedProcess } from '../run-process.js';
import { gitEnvironment } from './git-environment.js';
import { firstLine, type GitRun, type RunGitOptions } from './run-git.js';

export interface SpawnGitOptions extends RunGitOptions {
  /** Written to git's stdin, which is then closed. */
  readonly input?: string | Buffer;
}

export async function spawnGit(cwd: string, args: readonly string[], options: SpawnGitOptions = {}): Promise<GitRun> {
  const result = await runProcess('git', args, {
    cwd,
    env: gitEnvironment(options.env, options.extraEnv),
    input: options.input ?? '',
    timeoutMs: options.timeoutMs ?? 60_000,
  });
  if (result.startError)
    return { ok: false, exitCode: null, stdout: '', stderr: '', message: `cannot run git: ${result.startError.message}` };
  const timedOut = result.stopped === 'timeout';
  if (result.exitCode === 0 && !timedOut) return { ok: true, stdout: result.stdout, stderr: result.stderr };
  const why = timedOut ? `git ${args[0] ?? ''} timed out` : result.stderr.trim() || `git exited with code ${result.exitCode}`;
  return { ok: false, exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, message: firstLine(why) };
}

/** A git process with its pipes open, in ai-zen's git environment. */
export function startGit(cwd: string, args: readonly string[], env?: Env, extraEnv?: Env): PipedProcess {
  return startPipedProcess('git', args, { cwd, env: gitEnvironment(env, extraEnv) });
}
