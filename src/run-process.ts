// The one way ai-zen starts a child process (issue 13 item 4), on execa. Nothing else imports
// node:child_process or execa (a boundary rule checks it), so timeouts, group kills, output caps and
// spawn errors behave the same for the exec tool, user hooks, git hooks, git, notifiers and the daemon.
// What execa does not do is here: a deadline that kills the child's whole process group (execa kills
// the pid alone), output kept up to a cap while the child runs on, and a bounded drain when a
// background grandchild holds the pipes open after the child exited.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { execa, type Options } from 'execa';
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
export async function runProcess(file: string, args: readonly string[], options: RunProcessOptions = {}): Promise<ProcessResult> {
  const limit = options.maxBuffer ?? DEFAULT_MAX_BUFFER;
  const kept = { stdout: new KeptBytes(limit), stderr: new KeptBytes(limit), output: new KeptBytes(limit) };
  const subprocess = execa(file, args, {
    ...common(options),
    stdin: options.input === undefined ? 'ignore' : 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
    detached: options.processGroup === true,
  });
  let stopped: ProcessResult['stopped'] = null;
  const stop = (why: 'timeout' | 'aborted'): void => {
    stopped ??= why;
    const pid = subprocess.pid;
    if (pid === undefined) return;
    const target = options.processGroup ? -pid : pid;
    const grace = options.killGraceMs ?? 0;
    signalProcess(target, grace > 0 ? 'SIGTERM' : 'SIGKILL');
    if (grace > 0) setTimeout(() => signalProcess(target, 'SIGKILL'), grace).unref();
  };
  const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => stop('timeout'), options.timeoutMs);
  const onAbort = (): void => stop('aborted');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) stop('aborted');

  const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  for (const stream of ['stdout', 'stderr'] as const) {
    const decoder = decoders[stream];
    subprocess[stream]?.on('data', (chunk: Buffer) => {
      kept[stream].add(chunk);
      kept.output.add(chunk);
      if (options.onOutput) {
        const text = decoder.write(chunk);
        if (text !== '') options.onOutput(text, stream);
      }
    });
  }
  // A child that exits without reading all of its input closes the pipe: its answer, not an error.
  subprocess.stdin?.on('error', () => undefined);
  if (options.input !== undefined) subprocess.stdin?.end(options.input);
  if (options.drainMs !== undefined) {
    const drainMs = options.drainMs;
    subprocess.once('exit', () => {
      const drain = setTimeout(() => {
        subprocess.stdout?.destroy();
        subprocess.stderr?.destroy();
      }, drainMs);
      subprocess.once('close', () => clearTimeout(drain));
    });
  }

  const result = await subprocess;
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', onAbort);
  for (const stream of ['stdout', 'stderr'] as const) {
    const rest = decoders[stream].end();
    if (rest !== '') options.onOutput?.(rest, stream);
  }
  const startError = result.failed && result.exitCode === undefined && result.signal === undefined ? describeStartError(result) : null;
  return {
    exitCode: result.exitCode ?? null,
    signal: (result.signal as NodeJS.Signals | undefined) ?? null,
    stopped,
    startError,
    stdout: kept.stdout.text(),
    stderr: kept.stderr.text(),
    output: kept.output.text(),
    droppedBytes: kept.output.dropped,
  };
}

/** A child with its three pipes open, for a conversation over stdin/stdout (git update-ref --stdin). */
export type PipedProcess = ChildProcessWithoutNullStreams;

/** Starts `file` with its pipes open and hands it over; a failure to start arrives as its 'error' event. */
export function startPipedProcess(
  file: string,
  args: readonly string[],
  options: Pick<RunProcessOptions, 'cwd' | 'env'> = {},
): PipedProcess {
  const subprocess = execa(file, args, { ...common(options), stdio: 'pipe', buffer: false });
  // The caller follows the child through its events; the promise only must not go unhandled.
  subprocess.catch(() => undefined);
  return subprocess as unknown as PipedProcess;
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
  const subprocess = execa(file, args, {
    ...common(options),
    detached: true,
    stdio: ['ignore', options.outputFd, options.outputFd] as Options['stdio'],
  });
  subprocess.unref();
  const ended = subprocess.then((result) => ({
    exitCode: result.exitCode ?? null,
    signal: (result.signal as NodeJS.Signals | undefined) ?? null,
    startError: result.failed && result.exitCode === undefined && result.signal === undefined ? describeStartError(result).message : null,
  }));
  return { pid: subprocess.pid, ended };
}

/** Runs a program on our terminal (stdin, stdout and stderr inherited); resolves with its exit code, null when it could not run or was killed. */
export async function runInteractive(
  file: string,
  args: readonly string[],
  options: Pick<RunProcessOptions, 'cwd' | 'env'> = {},
): Promise<number | null> {
  const result = await execa(file, args, { ...common(options), stdio: 'inherit' });
  return result.exitCode ?? null;
}

/** The options every start shares: the environment as given, no rejection (results carry failures), no kill on our exit. */
function common(options: Pick<RunProcessOptions, 'cwd' | 'env'>) {
  return {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: (options.env ?? process.env) as Options['env'],
    extendEnv: false,
    reject: false,
    // A child is stopped by its deadline, not by our exit: a git killed as the daemon exits could leave a lock behind.
    cleanup: false,
    buffer: false,
    windowsHide: true,
  } as const;
}

function describeStartError(result: { cause?: unknown; code?: string; shortMessage?: string; message?: string }): {
  code: string | undefined;
  message: string;
} {
  const cause = result.cause as NodeJS.ErrnoException | undefined;
  const message = cause instanceof Error ? cause.message : (result.shortMessage ?? result.message ?? 'could not start').split('\n').at(-1)!;
  return { code: cause?.code ?? result.code, message };
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
