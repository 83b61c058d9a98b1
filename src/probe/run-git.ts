// One git invocation that reports its outcome instead of throwing, so probes and the committer can
// say *why* something is unknown or refused. Through the one process runner, in ai-zen's git
// environment (the user's own, optional locks off); no shell, the arguments are fixed by this code.
import type { Env } from '../paths.js';
import { runProcess } from '../run-process.js';
import { gitEnvironment } from './git-environment.js';

export type GitRun =
  | { readonly ok: true; readonly stdout: string; readonly stderr: string }
  | { readonly ok: false; readonly exitCode: number | null; readonly stdout: string; readonly stderr: string; readonly message: string };

export interface RunGitOptions {
  /** The caller's environment; optional locks are switched off on top of it. */
  readonly env?: Env;
  /** Variables set for this call only (GIT_INDEX_FILE for a temporary index). */
  readonly extraEnv?: Env;
  /** Kill git when it prints nothing for this long (a hung signing agent, a stale NFS mount); default 60 s. */
  readonly timeoutMs?: number;
  /** Written to git's stdin, which is then closed (default: nothing). */
  readonly input?: string | Buffer;
}

export async function runGit(cwd: string, args: readonly string[], options: RunGitOptions = {}): Promise<GitRun> {
  const result = await runProcess('git', args, {
    cwd,
    env: gitEnvironment(options.env, options.extraEnv),
    input: options.input ?? '',
    timeoutMs: options.timeoutMs ?? 60_000,
    timeoutFromLastOutput: true,
  });
  if (result.startError)
    return { ok: false, exitCode: null, stdout: '', stderr: '', message: `cannot run git: ${result.startError.message}` };
  const timedOut = result.stopped === 'timeout';
  if (result.exitCode === 0 && !timedOut) return { ok: true, stdout: result.stdout, stderr: result.stderr };
  const why = timedOut ? `git ${args[0] ?? ''} timed out` : result.stderr.trim() || `git exited with code ${result.exitCode}`;
  return { ok: false, exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, message: firstLine(why) };
}

/** The most telling line of git's complaint: the first `fatal:`/`error:` line, else the first line. */
export function firstLine(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const telling = lines.find((line) => /^(fatal|error):/.test(line));
  return (telling ?? lines[0] ?? 'git failed').replace(/^(fatal|error):\s*/, '');
}

export function isNotARepository(run: GitRun): boolean {
  return !run.ok && /not a git repository/i.test(run.stderr + run.message);
}
