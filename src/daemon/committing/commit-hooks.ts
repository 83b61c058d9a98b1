// Runs a git hook the way `git commit` would, for the handoff committer, which builds its
// commit with plumbing (so git itself runs no hooks): the hook file in the hooks folder
// (core.hooksPath honoured by the caller), only when executable, cwd at the top of the work
// tree, no stdin, GIT_EDITOR=: and GIT_PREFIX empty as git sets them, exit code 0 = go.
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Env } from '../../paths.js';
import { runProcess } from '../../run-process.js';

export type HookName = 'pre-commit' | 'prepare-commit-msg' | 'commit-msg' | 'post-commit';

export type HookOutcome =
  | { readonly ran: false }
  | { readonly ran: true; readonly ok: boolean; readonly exitCode: number | null; readonly output: string; readonly timedOut: boolean };

export interface RunHookOptions {
  readonly hooksDir: string;
  readonly cwd: string;
  readonly env: Env;
  readonly args?: readonly string[];
  readonly timeoutMs?: number;
  /** Aborted (the daemon stops): the hook and everything it started are killed, as on a timeout. */
  readonly signal?: AbortSignal;
}

const OUTPUT_LIMIT = 64 * 1024;

export async function runHook(name: HookName, options: RunHookOptions): Promise<HookOutcome> {
  const file = path.join(options.hooksDir, name);
  // git ignores a hook that is missing or not executable (it prints a hint for the latter).
  const runnable = await fs.access(file, constants.X_OK).then(
    () => true,
    () => false,
  );
  const isFile =
    runnable &&
    (await fs.stat(file).then(
      (stats) => stats.isFile(),
      () => false,
    ));
  if (!isFile) return { ran: false };
  const env = { ...options.env, GIT_EDITOR: ':', GIT_PREFIX: '' };
  const outcome = await spawnHook(file, [...(options.args ?? [])], options.cwd, env, options.timeoutMs ?? 120_000, options.signal);
  // Like execvp, git runs a script without a #! line through /bin/sh.
  if (outcome === 'ENOEXEC') {
    const retry = await spawnHook(
      '/bin/sh',
      [file, ...(options.args ?? [])],
      options.cwd,
      env,
      options.timeoutMs ?? 120_000,
      options.signal,
    );
    return retry === 'ENOEXEC' ? { ran: true, ok: false, exitCode: null, output: 'hook is not executable', timedOut: false } : retry;
  }
  return outcome;
}

async function spawnHook(
  file: string,
  args: string[],
  cwd: string,
  env: Env,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Exclude<HookOutcome, { ran: false }> | 'ENOEXEC'> {
  // Own process group, so a timeout ends the hook and whatever it started (linters, test runners).
  // A background child that keeps the pipes after the hook exits does not hold the commit: git waits for the hook alone.
  const result = await runProcess(file, args, {
    cwd,
    env,
    timeoutMs,
    processGroup: process.platform !== 'win32',
    drainMs: 1000,
    maxBuffer: OUTPUT_LIMIT,
    ...(signal ? { signal } : {}),
  });
  if (result.startError?.code === 'ENOEXEC') return 'ENOEXEC';
  if (result.startError) return { ran: true, ok: false, exitCode: null, output: result.startError.message, timedOut: false };
  if (result.stopped === 'aborted') return { ran: true, ok: false, exitCode: null, output: 'stopped with the daemon', timedOut: false };
  const timedOut = result.stopped === 'timeout';
  return { ran: true, ok: result.exitCode === 0 && !timedOut, exitCode: result.exitCode, output: result.output, timedOut };
}

/** One line for a refusal: the hook's last non-empty output line, which is usually the verdict. */
export function describeHookFailure(name: HookName, outcome: Exclude<HookOutcome, { ran: false }>): string {
  if (outcome.timedOut) return `the ${name} hook did not finish in time`;
  const lastLine = outcome.output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .at(-1);
  const code = outcome.exitCode === null ? '' : ` with exit code ${outcome.exitCode}`;
  return `the ${name} hook failed${code}${lastLine ? `: ${lastLine.slice(0, 200)}` : ''}`;
}
