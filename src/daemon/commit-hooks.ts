// Runs a git hook the way `git commit` would, for the handoff committer, which builds its
// commit with plumbing (so git itself runs no hooks): the hook file in the hooks folder
// (core.hooksPath honoured by the caller), only when executable, cwd at the top of the work
// tree, no stdin, GIT_EDITOR=: and GIT_PREFIX empty as git sets them, exit code 0 = go.
import { spawn } from 'node:child_process';
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Env } from '../paths.js';

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
  const outcome = await spawnHook(file, [...(options.args ?? [])], options.cwd, env, options.timeoutMs ?? 120_000);
  // Like execvp, git runs a script without a #! line through /bin/sh.
  if (outcome === 'ENOEXEC') {
    const retry = await spawnHook('/bin/sh', [file, ...(options.args ?? [])], options.cwd, env, options.timeoutMs ?? 120_000);
    return retry === 'ENOEXEC' ? { ran: true, ok: false, exitCode: null, output: 'hook is not executable', timedOut: false } : retry;
  }
  return outcome;
}

function spawnHook(
  file: string,
  args: string[],
  cwd: string,
  env: Env,
  timeoutMs: number,
): Promise<Exclude<HookOutcome, { ran: false }> | 'ENOEXEC'> {
  return new Promise((resolve) => {
    let output = '';
    let timedOut = false;
    // Own process group, so a timeout ends the hook and whatever it started (linters, test runners).
    const child = spawn(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
    const collect = (chunk: Buffer): void => {
      if (output.length < OUTPUT_LIMIT) output += chunk.toString('utf8');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error.code === 'ENOEXEC') resolve('ENOEXEC');
      else resolve({ ran: true, ok: false, exitCode: null, output: error.message, timedOut: false });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ ran: true, ok: code === 0 && !timedOut, exitCode: code, output, timedOut });
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
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
