// The one way ai-zen starts a child process. Nothing else imports
// node:child_process (a boundary rule checks it), so deadlines, process-group kills, output caps and
// start failures behave the same for the exec tool, user hooks, git hooks, git, notifiers, the editor
// and the daemon's own start. On node:child_process, not execa: execa cost the daemon 10 MiB of RSS
// (bench c, 1,000 sessions: 70.7 → 80.8 MiB against a target of 80) and every command its load time,
// and what this runner needs it does not do — its timeout kills the pid alone, not the group; its
// maxBuffer fails the child instead of keeping the start of the output; it waits for pipes a
// background grandchild holds open.
import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import type { Env } from './paths.js';

export type OutputStream = 'stdout' | 'stderr';

export interface RunProcessOptions {
  readonly cwd?: string;
  /** The child's whole environment, never merged with ours (default: process.env as it is). */
  readonly env?: Env;
  /** Written to stdin, which is then closed; without it stdin is /dev/null. */
  readonly input?: string | Buffer;
  /** After this, the child is stopped (see killGraceMs) and the result says `stopped: 'timeout'`. */
  readonly timeoutMs?: number;
  /** The deadline counts from the child's last output instead of its start (a slow git that still makes progress lives on). */
  readonly timeoutFromLastOutput?: boolean;
  /** Aborting it stops the child; the result says `stopped: 'aborted'`. */
  readonly signal?: AbortSignal;
  /**
   * The child leads a process group of its own, and stopping it signals the whole group, so a
   * deadline ends a pipeline or a hook together with everything it started. Default false.
   */
  readonly processGroup?: boolean;
  /** Stopping sends SIGTERM, then SIGKILL this much later; absent or 0: SIGKILL at once. */
  readonly killGraceMs?: number;
  /**
   * After the child exits, how long a background process may keep its pipes open before we stop
   * reading them (default: read until they close).
   */
  readonly drainMs?: number;
  /** Bytes kept of stdout, of stderr and of the two interleaved, each (default 16 MiB); the rest is counted in droppedBytes. */
  readonly maxBuffer?: number;
  /** Each piece of output as it arrives (decoded as UTF-8, never split inside a character). */
  readonly onOutput?: (text: string, stream: OutputStream) => void;
}

export interface ProcessResult {
  /** null when it did not start or was ended by a signal. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Why we ended it, or null when it ended on its own. */
  readonly stopped: 'timeout' | 'aborted' | null;
  /** Set when the process could not be started: the OS error code (ENOENT, EACCES, ENOEXEC…) and one line. */
  readonly startError: { readonly code: string | undefined; readonly message: string } | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout and stderr interleaved as they arrived. */
  readonly output: string;
  /** Bytes of the interleaved output past maxBuffer, not kept. */
  readonly droppedBytes: number;
}

const DEFAULT_MAX_BUFFER = 16 * 1024 * 1024;

/** Runs `file` with `args` (no shell) to its end; never throws, every way it can end is in the result. */
export function runProcess(file: string, args: readonly string[], options: RunProcessOptions = {}): Promise<ProcessResult> {
  const limit = options.maxBuffer ?? DEFAULT_MAX_BUFFER;
  const kept = { stdout: new KeptBytes(limit), stderr: new KeptBytes(limit), output: new KeptBytes(limit) };
  const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  const ended = (startError: ProcessResult['startError'], exit: Exit, stopped: ProcessResult['stopped']): ProcessResult => ({
    exitCode: exit.code,
    signal: exit.signal,
    stopped,
    startError,
    stdout: kept.stdout.text(),
    stderr: kept.stderr.text(),
    output: kept.output.text(),
    droppedBytes: kept.output.dropped,
  });
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(file, [...args], {
        ...common(options),
        stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        detached: options.processGroup === true,
      });
    } catch (error) {
      resolve(ended(describeStartError(error), NO_EXIT, null));
      return;
    }
    let stopped: ProcessResult['stopped'] = null;
    const stop = (why: 'timeout' | 'aborted'): void => {
      stopped ??= why;
      if (child.pid === undefined) return;
      const target = options.processGroup ? -child.pid : child.pid;
      const grace = options.killGraceMs ?? 0;
      signalProcess(target, grace > 0 ? 'SIGTERM' : 'SIGKILL');
      if (grace > 0) setTimeout(() => signalProcess(target, 'SIGKILL'), grace).unref();
    };
    let timer = options.timeoutMs === undefined ? undefined : setTimeout(() => stop('timeout'), options.timeoutMs);
    const outputArrived = (): void => {
      if (!options.timeoutFromLastOutput || timer === undefined || stopped !== null) return;
      clearTimeout(timer);
      timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    };
    const onAbort = (): void => stop('aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) stop('aborted');

    for (const stream of ['stdout', 'stderr'] as const) {
      child[stream]?.on('data', (chunk: Buffer) => {
        outputArrived();
        kept[stream].add(chunk);
        kept.output.add(chunk);
        if (options.onOutput) {
          const text = decoders[stream].write(chunk);
          if (text !== '') options.onOutput(text, stream);
        }
      });
    }
    // A child that exits without reading all of its input closes the pipe: its answer, not an error.
    child.stdin?.on('error', () => undefined);
    if (options.input !== undefined) child.stdin?.end(options.input);

    let startError: ProcessResult['startError'] = null;
    let exit: Exit = NO_EXIT;
    let drain: NodeJS.Timeout | undefined;
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(drain);
      options.signal?.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      for (const stream of ['stdout', 'stderr'] as const) {
        const rest = decoders[stream].end();
        if (rest !== '') options.onOutput?.(rest, stream);
      }
      resolve(ended(startError, exit, stopped));
    };
    child.once('error', (error) => {
      // Without a pid it never started; with one, the error is about a signal or a pipe, and 'close' follows.
      if (child.pid !== undefined) return;
      startError = describeStartError(error);
      finish();
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      if (options.drainMs !== undefined) drain = setTimeout(finish, options.drainMs);
    });
    child.once('close', finish);
  });
}

/** A child with its three pipes open, for a conversation over stdin/stdout (git update-ref --stdin). */
export type PipedProcess = ChildProcessWithoutNullStreams;

/** Starts `file` with its pipes open and hands it over; a failure to start arrives as its 'error' event. */
export function startPipedProcess(
  file: string,
  args: readonly string[],
  options: Pick<RunProcessOptions, 'cwd' | 'env'> = {},
): PipedProcess {
  return spawn(file, [...args], { ...common(options), stdio: 'pipe' });
}

export interface DetachedStart {
  readonly pid: number | undefined;
  /** Settles when the child ends (or could not start); the process is unreferenced and may outlive us. */
  readonly ended: Promise<{ exitCode: number | null; signal: NodeJS.Signals | null; startError: string | null }>;
}

/** Starts a process that outlives us: its own session, stdout and stderr into `outputFd`, not waited for. */
export function startDetachedProcess(
  file: string,
  args: readonly string[],
  options: Pick<RunProcessOptions, 'cwd' | 'env'> & { readonly outputFd: number },
): DetachedStart {
  const child = spawn(file, [...args], { ...common(options), detached: true, stdio: ['ignore', options.outputFd, options.outputFd] });
  const ended = new Promise<{ exitCode: number | null; signal: NodeJS.Signals | null; startError: string | null }>((resolve) => {
    child.once('error', (error) => resolve({ exitCode: null, signal: null, startError: describeStartError(error).message }));
    child.once('exit', (code, signal) => resolve({ exitCode: code, signal, startError: null }));
  });
  child.unref();
  return { pid: child.pid, ended };
}

/** Runs a program on our terminal (stdin, stdout and stderr inherited); resolves with its exit code, null when it could not run or was killed. */
export function runInteractive(
  file: string,
  args: readonly string[],
  options: Pick<RunProcessOptions, 'cwd' | 'env'> = {},
): Promise<number | null> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(file, [...args], { ...common(options), stdio: 'inherit' });
    } catch {
      resolve(null);
      return;
    }
    child.once('error', () => resolve(null));
    child.once('exit', (code) => resolve(code));
  });
}

type Exit = { readonly code: number | null; readonly signal: NodeJS.Signals | null };
const NO_EXIT: Exit = { code: null, signal: null };

/** What every start shares: the working folder, and the environment as given (never merged with ours). */
function common(options: Pick<RunProcessOptions, 'cwd' | 'env'>): { cwd?: string; env: NodeJS.ProcessEnv; windowsHide: true } {
  return {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: (options.env ?? process.env) as NodeJS.ProcessEnv,
    windowsHide: true,
  };
}

/** A start failure as one line and the OS code (ENOENT, EACCES, ENOEXEC…). */
function describeStartError(error: unknown): { code: string | undefined; message: string } {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  return { code, message };
}

function signalProcess(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // Already gone.
  }
}

/** The first `limit` bytes of a stream, and a count of the rest. */
class KeptBytes {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  dropped = 0;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    const room = this.limit - this.bytes;
    const kept = room <= 0 ? null : chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept) {
      this.chunks.push(kept);
      this.bytes += kept.length;
    }
    this.dropped += chunk.length - (kept?.length ?? 0);
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
