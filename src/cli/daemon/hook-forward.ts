// The lean path of `ai-zen-daemon hook <agent> <event>`: the agent's stdin, untouched, to the repo's
// daemon (`agent-hook-input`), which reads it as the agent's hooks do and answers the output shaped
// for the agent. Node built-ins and a few base modules only (no zod, no agent's code): every agent
// turn waits on this process. What it cannot do — no daemon answers (a session start in an enabled
// repo launches one), an older daemon that does not know the request — falls back to hook-answer.ts.
import { readSync } from 'node:fs';
import { requestOnce } from '../../ipc/one-request.js';
import { socketPathFor } from '../../ipc/socket-path.js';
import type { Env } from '../../paths.js';
import { agentProcessOf } from '../../probe/agent-process.js';
import { nearestRepo } from '../shared/nearest-repo.js';

/** What a hook reads on stdin at most (a Claude hook input is a few hundred bytes). */
const MAX_INPUT_BYTES = 1024 * 1024;
/** Under the hook's own timeout in the settings (60 s): the answer or nothing. */
const HOOK_ANSWER_MS = 50_000;
/** An input past this would not fit the daemon's request limit (1 MiB) with its envelope: the full path reads it here. */
const MAX_FORWARDED_BYTES = 512 * 1024;
/** Refusals the full path answers: an older daemon (no such request), or one whose checks this input fails. */
const FALL_BACK_ON = new Set(['unknown-type', 'not-supported', 'bad-request']);

export type ForwardOutcome =
  /** The daemon answered: print this (null: nothing). */
  | { readonly kind: 'answered'; readonly output: Record<string, unknown> | null }
  /** The full path must answer (no daemon, or one that does not know the request): with this input. */
  | { readonly kind: 'fallback'; readonly input: Buffer }
  /** Nothing to print (bad input, no answer in time). */
  | { readonly kind: 'silent' };

export async function forwardHook(
  agent: string,
  event: string,
  io: { readonly cwd: string; readonly env: Env; readonly stdin: () => NodeJS.ReadableStream },
): Promise<ForwardOutcome> {
  const bytes = await readInput(io.stdin);
  if (bytes === null) return { kind: 'silent' };
  let input: unknown;
  try {
    input = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { kind: 'silent' };
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input) || bytes.length > MAX_FORWARDED_BYTES)
    return { kind: 'fallback', input: bytes };
  const folder = (input as { cwd?: unknown }).cwd;
  const root = nearestRepo(typeof folder === 'string' && folder !== '' ? folder : io.cwd);
  // The agent runs the hook (through a shell or two): its process is the one `/clear` keeps.
  const agentPid = agentProcessOf(process.ppid);
  const params = { agent, event, input, ...(agentPid !== null ? { agentPid } : {}) };
  const outcome = await requestOnce(socketPathFor(root, { env: io.env }), 'agent-hook-input', params, HOOK_ANSWER_MS);
  switch (outcome.kind) {
    case 'answered': {
      const output = (outcome.result as { output?: unknown } | null)?.output;
      return { kind: 'answered', output: typeof output === 'object' && output !== null ? (output as Record<string, unknown>) : null };
    }
    case 'no-daemon':
      return { kind: 'fallback', input: bytes };
    case 'refused':
      // A daemon older than this request, or a root found here that is not the daemon's: the full path decides.
      return FALL_BACK_ON.has(outcome.code) ? { kind: 'fallback', input: bytes } : { kind: 'silent' };
    case 'no-answer':
      return { kind: 'silent' };
  }
}

/**
 * fd 0 read at once; what a non-blocking descriptor has not delivered yet (EAGAIN: the agent is still
 * writing) is read as a stream (made only then: `process.stdin` costs ~1 ms to set up).
 */
async function readInput(stdin: () => NodeJS.ReadableStream): Promise<Buffer | null> {
  const read = readStdinSync();
  if (read === null || read.ended) return read && Buffer.concat(read.chunks);
  return readBounded(stdin(), read.chunks);
}

/** A hook's input from a stream, after what was already read; null past MAX_INPUT_BYTES. */
export async function readBounded(stream: NodeJS.ReadableStream, already: readonly Buffer[] = []): Promise<Buffer | null> {
  const chunks = [...already];
  let size = chunks.reduce((total, chunk) => total + chunk.length, 0);
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_INPUT_BYTES) return null;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * The process's stdin read straight from fd 0 until its end (`ended`), or until a non-blocking
 * descriptor has nothing more yet: setting up `process.stdin` as a stream cost a few ms of every
 * hook run. Null: too large, or unreadable.
 */
function readStdinSync(): { readonly chunks: Buffer[]; readonly ended: boolean } | null {
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    let count: number;
    try {
      count = readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') return { chunks, ended: false };
      if (code === 'EOF') return { chunks, ended: true };
      return null;
    }
    if (count === 0) return { chunks, ended: true };
    size += count;
    if (size > MAX_INPUT_BYTES) return null;
    chunks.push(buffer.subarray(0, count));
  }
}
