// `ai-zen-daemon statusline`: Claude Code's `statusLine` command. Reads Claude's JSON
// on stdin, hands the exact reading to this repo's daemon (IPC `statusline`) and prints one line:
// `ctx 62% · hands off 70% · compacts ~73% · last doc 14:02`. It never fails the statusline (Claude
// shows nothing for a command that exits non-zero): bad input, no daemon, a slow daemon each print
// a short line and exit 0. `--chain '<command>'` runs the user's own statusline command with the
// same input and appends ours to what it prints.
//
// Fast on purpose: Claude runs it on every refresh. The stable shim runs ai-zen-statusline.js,
// which loads this module and what it imports — node built-ins and small base modules, no zod, no
// commander — and `ai-zen-daemon statusline` (the full CLI) runs the same function.
import type { Command } from 'commander';
import { fstatSync, read as fsRead } from 'node:fs';
import { nodePipe } from '../../ipc/node-pipe.js';
import { requestOnce } from '../../ipc/one-request.js';
import { socketPathFor } from '../../ipc/socket-path.js';
import type { Env } from '../../paths.js';
import { nearestRepo } from '../shared/nearest-repo.js';
import { writeOut } from '../shared/write-out.js';
import { flightKey, takeOff } from './statusline-flight.js';
import { readStatuslineFacts, readStatuslineInput, statuslineText, UNREADABLE_LINE, type StatuslineReading } from './statusline-line.js';

/** What the statusline reads on stdin at most (Claude's input is about 2 KB). */
const MAX_INPUT_BYTES = 256 * 1024;
/** Claude closes stdin at once; a caller that never does gets the line from what it sent by then. */
const INPUT_DEADLINE_MS = 1000;
/** How long the daemon has to answer, connecting included (it answers from memory). */
const DAEMON_DEADLINE_MS = 500;
/** How long a chained command may run (Claude itself cancels a statusline that takes much longer). */
const CHAIN_DEADLINE_MS = 5000;
const CHAIN_MAX_OUTPUT = 64 * 1024;
/** The whole run's own bound (over the input's and the daemon's): past it, the last line rather than none. */
const SELF_DEADLINE_MS = 2000;

export interface StatuslineIo {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /**
   * Read this descriptor instead of `stdin` (the lean entry: fd 0). Setting up `process.stdin` as a
   * stream and reading it cost ~4 ms of every refresh; Node's pipe handle on the descriptor (or an
   * fs.read where there is none) well under 1 ms.
   */
  readonly stdinFd?: number;
  readonly stdout: NodeJS.WritableStream;
  /** Write the line to this descriptor (the lean entry: fd 1), `stdout` only if it will not take it now. */
  readonly stdoutFd?: number;
  readonly stderr: NodeJS.WritableStream;
  readonly env: Env;
  readonly cwd: string;
}

export interface StatuslineOptions {
  /** The user's own statusline command, run first with the same input. */
  readonly chain?: string;
}

/** Prints the line; resolves once it is written. Never rejects. */
export async function runStatusline(options: StatuslineOptions, io: StatuslineIo): Promise<void> {
  const line = await flyStatusline(options, io).catch(() => UNREADABLE_LINE);
  if (io.stdoutFd !== undefined) await writeOut(io.stdoutFd, `${line}\n`, () => io.stdout);
  else await new Promise<void>((resolve) => io.stdout.write(`${line}\n`, () => resolve()));
}

/**
 * One run per session at a time (statusline-flight.ts): a run while another is alive prints that one's
 * last line; a run past its own deadline prints the last line (or its reading alone) rather than nothing.
 */
async function flyStatusline(options: StatuslineOptions, io: StatuslineIo): Promise<string> {
  const kind = io.stdinFd !== undefined ? kindOf(io.stdinFd) : null;
  const input =
    io.stdinFd !== undefined
      ? kind === 'terminal'
        ? ''
        : await readDescriptor(io.stdinFd, kind === 'stream').catch(() => null)
      : io.stdin.isTTY
        ? ''
        : await readInput(io.stdin).catch(() => null);
  const reading = input === null ? null : readStatuslineInput(input);
  const flight = takeOff(io.env, flightKey(reading?.sessionId ?? null, projectRoot(reading?.folder ?? io.cwd)));
  const fallback = () => flight.last ?? (reading === null ? UNREADABLE_LINE : statuslineText(reading, { kind: 'no-answer' }, new Date()));
  if (flight.kind === 'busy') return fallback();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), options.chain ? CHAIN_DEADLINE_MS + SELF_DEADLINE_MS : SELF_DEADLINE_MS);
  });
  try {
    const line = await Promise.race([statuslineLine(options, io, input ?? '', reading).catch(() => UNREADABLE_LINE), late]);
    flight.land(line);
    return line ?? fallback();
  } catch {
    flight.land(null);
    return fallback();
  } finally {
    clearTimeout(timer);
  }
}

async function statuslineLine(
  options: StatuslineOptions,
  io: StatuslineIo,
  input: string,
  reading: StatuslineReading | null,
): Promise<string> {
  const [theirs, ours] = await Promise.all([
    options.chain ? runChained(options.chain, input, io) : Promise.resolve(''),
    reading === null ? Promise.resolve(UNREADABLE_LINE) : ourLine(reading, io),
  ]);
  return theirs === '' ? ours : `${theirs} · ${ours}`;
}

async function ourLine(reading: StatuslineReading, io: StatuslineIo): Promise<string> {
  const root = projectRoot(reading.folder ?? io.cwd);
  const outcome = await requestOnce(socketPathFor(root, { env: io.env }), 'statusline', daemonParams(reading), DAEMON_DEADLINE_MS);
  const facts = outcome.kind === 'answered' ? readStatuslineFacts(outcome.result) : null;
  const daemon =
    facts !== null
      ? ({ kind: 'facts', facts } as const)
      : outcome.kind === 'no-daemon'
        ? ({ kind: 'off' } as const)
        : ({ kind: 'no-answer' } as const);
  return statuslineText(reading, daemon, new Date());
}

/** The reading as the `statusline` request's params (ipc/protocol.ts): a field out of bounds is left out, never cut. */
function daemonParams(reading: StatuslineReading): Record<string, unknown> {
  const params: Record<string, unknown> = { agent: 'claude-code' };
  if (reading.sessionId !== null && reading.sessionId.length <= 256) params.sessionId = reading.sessionId;
  if (reading.transcriptPath !== null && reading.transcriptPath.length <= 4096) params.transcriptPath = reading.transcriptPath;
  if (reading.model !== null && reading.model.length <= 256) params.model = reading.model;
  if (reading.usedPercent !== null && reading.usedPercent <= 10_000) params.usedPercent = reading.usedPercent;
  if (reading.contextWindowSize !== null) params.contextWindowSize = reading.contextWindowSize;
  if (reading.promptTokens !== null) params.promptTokens = reading.promptTokens;
  return params;
}

/** The repo the daemon watches (nearest-repo.ts: as git finds it, without starting git). */
export const projectRoot = nearestRepo;

/** The user's command, with Claude's input on its stdin; what it printed, without the trailing newline. */
async function runChained(command: string, input: string, io: StatuslineIo): Promise<string> {
  // Loaded only for --chain: the child-process runner is not what every refresh needs.
  const { runProcess } = await import('../../run-process.js');
  const result = await runProcess('/bin/sh', ['-c', command], {
    cwd: io.cwd,
    env: io.env,
    input,
    timeoutMs: CHAIN_DEADLINE_MS,
    processGroup: true,
    drainMs: 100,
    maxBuffer: CHAIN_MAX_OUTPUT,
  }).catch(() => null);
  return result === null ? '' : result.stdout.replace(/\s+$/, '');
}

/**
 * What `fd` is, from one fstat: a terminal (a character device: node:tty's isatty would load node:net
 * and the streams for one answer), a pipe or socket, or anything else.
 */
function kindOf(fd: number): 'terminal' | 'stream' | 'other' {
  try {
    const stat = fstatSync(fd);
    return stat.isCharacterDevice() ? 'terminal' : stat.isFIFO() || stat.isSocket() ? 'stream' : 'other';
  } catch {
    return 'other';
  }
}

/**
 * As readInput, from a descriptor: a pipe or socket through Node's pipe handle (node-pipe.ts: no
 * stream, no thread), else read in the thread pool; the deadline holds while either waits.
 */
async function readDescriptor(fd: number, stream: boolean): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const keep = (chunk: Buffer): boolean => {
    bytes += chunk.length;
    if (bytes > MAX_INPUT_BYTES) return false;
    chunks.push(chunk);
    return true;
  };
  const pipe = stream ? nodePipe() : null;
  const read = new Promise<void>((resolve, reject) => {
    if (pipe !== null) {
      const reading = pipe.read(fd, {
        data: (chunk) => {
          if (keep(chunk)) return;
          reading.close();
          reject(new Error('statusline input too large'));
        },
        end: (code, message) => (code === 'EOF' ? resolve() : reject(new Error(message))),
      });
      return;
    }
    const buffer = Buffer.allocUnsafe(64 * 1024);
    const next = () =>
      fsRead(fd, buffer, 0, buffer.length, null, (error, count) => {
        if (error) return reject(error);
        if (count === 0) return resolve();
        if (!keep(Buffer.from(buffer.subarray(0, count)))) return reject(new Error('statusline input too large'));
        next();
      });
    next();
  });
  return untilDeadline(read, chunks);
}

async function readInput(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const read = (async () => {
    for await (const chunk of stream) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      bytes += buffer.length;
      if (bytes > MAX_INPUT_BYTES) throw new Error('statusline input too large');
      chunks.push(buffer);
    }
  })();
  return untilDeadline(read, chunks);
}

/** What was read by the input deadline: a statusline never waits on a stdin that stays open. */
async function untilDeadline(read: Promise<void>, chunks: readonly Buffer[]): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, INPUT_DEADLINE_MS);
  });
  try {
    await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `ai-zen-daemon statusline` in the full CLI (the shim takes the lean entry, ai-zen-statusline.js). */
export function registerStatuslineCommand(program: Command, setup: { readonly io: StatuslineIo }): void {
  program
    .command('statusline')
    .option('--chain <command>', 'run your own statusline command first (same input) and append ai-zen’s line to what it prints')
    .description('Claude Code’s statusLine: reads its JSON on stdin, prints context %, handoff and compaction points, last document')
    .action(async (flags: { chain?: string }) => {
      await runStatusline(flags.chain ? { chain: flags.chain } : {}, setup.io);
    });
}
