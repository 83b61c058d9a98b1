// One request and its reply over a plain socket, with no zod and, where it can, no node:net: for a
// caller whose whole run must fit in a few tens of milliseconds (a hook, Claude Code's statusline).
// client.ts validates with protocol.ts's zod schemas, and loading zod alone takes longer than the
// statusline's whole budget on a loaded machine (measured: bench/RESULTS-statusline.md); this one
// checks the reply's envelope by hand and leaves the result's shape to its caller. Same wire (README).
// The socket is Node's pipe handle itself (node-pipe.ts) where it is as this was tried on, else node:net.
import { nodePipe, type ConnectEvents, type PipeStream } from './node-pipe.js';

/** protocol.ts's PROTOCOL_VERSION and DELIMITER, spelt out: importing that module loads zod. */
const VERSION = 1;
const DELIMITER = 0x0c;
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

/** How the socket is opened: Node's pipe handle where it is as tried, else node:net. */
export type Connect = (socketPath: string, events: ConnectEvents) => PipeStream;

const connectAnyway: Connect = (socketPath, events) => nodePipe()?.connect(socketPath, events) ?? netConnect(socketPath, events);

/** Sends one request and waits at most `deadlineMs` (connecting included) for its reply. Never rejects. */
export function requestOnce(
  socketPath: string,
  type: string,
  params: unknown,
  deadlineMs: number,
  connect: Connect = connectAnyway,
): Promise<OneRequestOutcome> {
  const id = `one-${process.pid}-${++counter}`;
  return new Promise((resolve) => {
    let buffered: Buffer = Buffer.alloc(0);
    let done = false;
    const finish = (outcome: OneRequestOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.close();
      resolve(outcome);
    };
    const events = {
      connected: () => socket.write(`${JSON.stringify({ v: VERSION, id, type, params })}\f`),
      data: (chunk: Buffer) => {
        buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
        if (buffered.length > MAX_REPLY_BYTES) return finish({ kind: 'no-answer', why: 'the reply is too large' });
        // A frame ends at a form feed, a byte no UTF-8 sequence holds but itself.
        let end = buffered.indexOf(DELIMITER);
        while (end !== -1) {
          const reply = parseReply(buffered.subarray(0, end).toString('utf8'), id);
          buffered = buffered.subarray(end + 1);
          if (reply) return finish(reply);
          end = buffered.indexOf(DELIMITER);
        }
      },
      end: (code: string, message: string) =>
        finish(
          code === 'ENOENT' || code === 'ECONNREFUSED'
            ? { kind: 'no-daemon' }
            : { kind: 'no-answer', why: code === 'EOF' ? 'the daemon closed the connection' : message },
        ),
    };
    const timer = setTimeout(() => finish({ kind: 'no-answer', why: `no answer within ${deadlineMs} ms` }), deadlineMs);
    const socket = connect(socketPath, events);
  });
}

/** The same connection through node:net, loaded only here. */
export function netConnect(socketPath: string, events: ConnectEvents): PipeStream {
  const socket = process.getBuiltinModule('node:net').createConnection({ path: socketPath });
  socket.once('connect', events.connected);
  socket.on('data', events.data);
  socket.on('error', (error: NodeJS.ErrnoException) => events.end(error.code ?? 'ERROR', error.message));
  socket.on('close', () => events.end('EOF', 'the daemon closed the connection'));
  return { write: (text) => socket.write(text), close: () => socket.destroy() };
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
