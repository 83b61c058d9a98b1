// What the three fake model servers share (Chat Completions, Responses, Anthropic Messages): a
// loopback HTTP server on a free port that hands each request to its handler with the body read
// and parsed, and whose close() ends even a reply left hanging on purpose; and the script of
// replies — handlers that may answer a request, then a queue in order.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface LoopbackServer {
  readonly port: number;
  /** Destroys every open connection (a hanging reply included), then closes the server. */
  close(): Promise<void>;
}

/** A request's JSON body: null when empty, `{ unparsable: raw }` when not JSON (recorded as sent). */
export function parseBody(raw: string): any {
  if (raw.length === 0) return null;
  try {
    return JSON.parse(raw);
  } catch {
    return { unparsable: raw };
  }
}

/**
 * Listens on 127.0.0.1 and a free port. A handler that throws gets a 500 (or, once the reply has
 * begun, a dropped connection): a broken fake must fail the test loudly, not hang it.
 */
export async function listenLoopback(
  name: string,
  onRequest: (req: http.IncomingMessage, res: http.ServerResponse, raw: string) => void | Promise<void>,
): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const fail = (error: unknown) => {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `${name}: ${String(error)}`, type: 'server_error', param: null, code: null } }));
      };
      try {
        void Promise.resolve(onRequest(req, res, Buffer.concat(chunks).toString('utf8'))).catch(fail);
      } catch (error) {
        fail(error);
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Every script made in this test worker, a closed server's too (a test may close its server before
 * the check runs): after each test, test/support/replies-consumed.ts fails the one that left a reply.
 */
export const liveScripts = new Set<ReplyScript<unknown, unknown>>();

/** Handlers first (each may answer or pass with `undefined`), then the queue, in order. */
export class ReplyScript<Request, Reply> {
  private readonly queue: Reply[] = [];
  private readonly handlers: ((request: Request) => Reply | undefined | Promise<Reply | undefined>)[] = [];

  readonly enqueue = (...replies: Reply[]): void => {
    this.queue.push(...replies);
  };

  /** Returns a remover. */
  readonly handle = (fn: (request: Request) => Reply | undefined | Promise<Reply | undefined>): (() => void) => {
    this.handlers.push(fn);
    return () => {
      const at = this.handlers.indexOf(fn);
      if (at >= 0) this.handlers.splice(at, 1);
    };
  };

  readonly pending = (): number => this.queue.length;

  /** Empties the queue and returns what was in it: a reply one test left must never answer the next. */
  readonly drain = (): Reply[] => this.queue.splice(0);

  constructor(readonly name: string) {
    liveScripts.add(this as ReplyScript<unknown, unknown>);
  }

  /** The reply for this request, or undefined when no handler answers and the queue is empty. */
  async next(request: Request): Promise<Reply | undefined> {
    for (const handler of [...this.handlers]) {
      const chosen = await handler(request);
      if (chosen) return chosen;
    }
    return this.queue.shift();
  }
}
