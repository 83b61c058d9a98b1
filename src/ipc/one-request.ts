// One request and its reply over a plain socket, with nothing but node:net: for a caller whose
// whole run must fit in a few tens of milliseconds (Claude Code's statusline).
// client.ts validates with protocol.ts's zod schemas, and loading zod alone takes longer than the
// statusline's whole budget on a loaded machine (measured: bench/RESULTS-statusline.md); this one
// checks the reply's envelope by hand and leaves the result's shape to its caller. Same wire (README).
import net from 'node:net';

/** protocol.ts's PROTOCOL_VERSION and DELIMITER, spelt out: importing that module loads zod. */
const VERSION = 1;
const DELIMITER = '\f';
/** A statusline's reply is a few hundred bytes: anything far larger is not the answer. */
const MAX_REPLY_BYTES = 64 * 1024;

export type OneRequestOutcome =
  | { readonly kind: 'answered'; readonly result: unknown }
  | { readonly kind: 'refused'; readonly code: string; readonly message: string }
  /** No daemon listens (no socket, or a socket nobody serves). */
  | { readonly kind: 'no-daemon' }
  /** No answer within the deadline, or the connection failed otherwise. */
  | { readonly kind: 'no-answer'; readonly why: string };

let counter = 0;

/** Sends one request and waits at most `deadlineMs` (connecting included) for its reply. Never rejects. */
export function requestOnce(socketPath: string, type: string, params: unknown, deadlineMs: number): Promise<OneRequestOutcome> {
  const id = `one-${process.pid}-${++counter}`;
  return new Promise((resolve) => {
    const socket = net.createConnection({ path: socketPath });
    let buffered = '';
    const finish = (outcome: OneRequestOutcome) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'no-answer', why: `no answer within ${deadlineMs} ms` }), deadlineMs);
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write(`${JSON.stringify({ v: VERSION, id, type, params })}${DELIMITER}`));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish(error.code === 'ENOENT' || error.code === 'ECONNREFUSED' ? { kind: 'no-daemon' } : { kind: 'no-answer', why: error.message }),
    );
    socket.on('close', () => finish({ kind: 'no-answer', why: 'the daemon closed the connection' }));
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.length > MAX_REPLY_BYTES) return finish({ kind: 'no-answer', why: 'the reply is too large' });
      let end = buffered.indexOf(DELIMITER);
      while (end !== -1) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        const reply = parseReply(frame, id);
        if (reply) return finish(reply);
        end = buffered.indexOf(DELIMITER);
      }
    });
  });
}

function parseReply(frame: string, id: string): OneRequestOutcome | null {
  let value: unknown;
  try {
    value = JSON.parse(frame);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const reply = value as { v?: unknown; id?: unknown; ok?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };
  if (reply.v !== VERSION || reply.id !== id) return null; // an event, or another request's
  if (reply.ok === true) return { kind: 'answered', result: reply.result };
  return { kind: 'refused', code: String(reply.error?.code ?? 'unknown'), message: String(reply.error?.message ?? '') };
}
