// The daemon's IPC server: node-ipc over a Unix domain socket, speaking protocol.ts.
//
// The caller MUST hold the daemon lock before serving, and passes it in as proof: node-ipc
// unlinks whatever socket is at the path and listens there, so a second server on the same path
// would silently take over the live daemon's socket. Under the lock, anything left at the path is
// a dead daemon's and may go.
import { IPCModule } from '@achrinza/node-ipc';
import fs from 'node:fs/promises';
import type net from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import { AiZenError, describeError } from '../errors.js';
import { EventSchemas, isCheckedEvent, type AnyEvent } from '../events.js';
import type { HeldLock } from '../lock/os-lock.js';
import { ensurePrivateDir } from '../lock/runtime-dir.js';
import { connectionToDrop, DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './connection-limits.js';
import { FrameDecoder } from './frame-decoder.js';
import {
  encodeMessage,
  errorReply,
  MAX_REQUEST_BYTES,
  PROTOCOL_VERSION,
  Request,
  RequestId,
  RequestParams,
  RequestType,
  type Reply,
} from './protocol.js';
import { assertSocketPathFits } from './socket-path.js';

type HandledType = Exclude<RequestType, 'subscribe'>;

/** One async function per request type; `subscribe` is the server's own. A missing one answers 'not-supported'. */
export type IpcHandlers = {
  [T in HandledType]?: (params: RequestParams<T>) => Promise<unknown>;
};

export interface IpcServerOptions {
  readonly socketPath: string;
  readonly handlers: IpcHandlers;
  readonly logger: Logger;
  /** The daemon lock (lock/os-lock.ts), held: see the note at the top of this file. */
  readonly lock: HeldLock;
  readonly maxRequestBytes?: number;
  /** Idle and partial-frame timeouts, and how many connections before the idlest makes room. */
  readonly limits?: Partial<ConnectionLimits>;
}

export interface IpcServer {
  readonly socketPath: string;
  /** Pushes an event of the catalogue to every subscriber; an invalid event is logged and dropped. */
  publish(event: AnyEvent): void;
  /** How many connections are subscribed to events now (a subscriber keeps an idle daemon up). */
  subscribers(): number;
  /** Flushes pending replies, closes every connection and the socket (its file is removed). Idempotent. */
  close(): Promise<void>;
}

/** A subscriber that stops reading is cut off rather than letting its backlog grow without bound. */
const MAX_BACKLOG_BYTES = 8 * 1024 * 1024;
/** Connections that will not close after end() are destroyed after this. */
const CLOSE_DEADLINE_MS = 1000;

export async function startIpcServer(options: IpcServerOptions): Promise<IpcServer> {
  const { socketPath, handlers, logger, lock } = options;
  if (!lock.held) {
    throw new AiZenError(
      'daemon',
      'refusing to serve IPC without holding the daemon lock: a second server would take over the live socket',
    );
  }
  assertSocketPathFits(socketPath);
  await ensurePrivateDir(path.dirname(socketPath));

  const ipc = new IPCModule();
  Object.assign(ipc.config, {
    silent: true, // node-ipc logs through console.log otherwise
    rawBuffer: true, // we frame and parse ourselves (frame-decoder.ts)
    encoding: 'utf8',
    unlink: true,
    // A hard ceiling only: past limits.maxConnections the idlest connection makes room (see connection-limits.ts).
    maxConnections: 1024,
  });
  ipc.serve(socketPath);
  const server = ipc.server;
  if (!server) throw new AiZenError('daemon', 'node-ipc did not create a server');

  await new Promise<void>((resolve, reject) => {
    const onStartError = (error: Error) =>
      reject(new AiZenError('daemon', `could not listen on ${socketPath}: ${error.message}`, { cause: error }));
    server.on('error', onStartError);
    server.on('start', () => {
      server.off('error', onStartError);
      resolve();
    });
    server.start();
  });
  // The socket is created with the umask's mode (0755 here); the 0700 folder already shields it,
  // and 0600 says the same on the socket itself.
  await fs.chmod(socketPath, 0o600);

  interface Connection {
    readonly decoder: FrameDecoder;
    subscribed: boolean;
    inFlight: number;
    lastActivity: number;
    timer: NodeJS.Timeout | null;
  }
  const connections = new Map<net.Socket, Connection>();
  const maxRequestBytes = options.maxRequestBytes ?? MAX_REQUEST_BYTES;
  const limits: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };

  /** (Re)arms the connection's one timer after any activity: partial frame, idle, or none (busy, subscribed). */
  function arm(socket: net.Socket, connection: Connection): void {
    connection.lastActivity = performance.now();
    if (connection.timer) clearTimeout(connection.timer);
    connection.timer = null;
    const partial = connection.decoder.bufferedBytes > 0;
    if (!partial && (connection.inFlight > 0 || connection.subscribed)) return;
    const [ms, why] = partial ? [limits.partialFrameTimeoutMs, 'a partial frame'] : [limits.idleTimeoutMs, 'nothing'];
    connection.timer = setTimeout(() => {
      logger.info({ afterMs: ms }, `closing an ipc connection that sent ${why} for ${ms} ms`);
      socket.destroy();
    }, ms);
    connection.timer.unref();
  }

  server.on('error', (error: Error) => logger.debug({ err: error }, 'ipc connection error'));
  server.on('connect', (socket: net.Socket) => {
    if (connections.size >= limits.maxConnections) {
      const victim = connectionToDrop(connections);
      if (victim) {
        logger.info({ connections: connections.size }, 'ipc connections at their limit; closing the one idle the longest to make room');
        connections.delete(victim);
        victim.destroy();
      } else {
        logger.warn({ connections: connections.size }, 'ipc connections at their limit, all waiting for an answer; refusing a new one');
        socket.destroy();
        return;
      }
    }
    const connection: Connection = {
      decoder: new FrameDecoder(maxRequestBytes),
      subscribed: false,
      inFlight: 0,
      lastActivity: 0,
      timer: null,
    };
    connections.set(socket, connection);
    arm(socket, connection);
    socket.once('close', () => {
      if (connection.timer) clearTimeout(connection.timer);
      connections.delete(socket);
    });
  });
  server.on('data', (chunk: Buffer, socket: net.Socket) => {
    const connection = connections.get(socket);
    if (!connection) return;
    for (const frame of connection.decoder.push(chunk)) {
      if (frame.kind === 'too-large') {
        logger.warn({ bytes: frame.bytes }, 'ipc request too large; refused');
        send(socket, errorReply(null, 'too-large', `request over ${maxRequestBytes} bytes refused`));
        continue;
      }
      connection.inFlight += 1;
      void answer(frame.text, connection).then((reply) => {
        connection.inFlight -= 1;
        send(socket, reply);
        if (connections.get(socket) === connection) arm(socket, connection);
      });
    }
    arm(socket, connection);
  });

  function send(socket: net.Socket, message: unknown): void {
    if (socket.destroyed || !socket.writable) return;
    try {
      socket.write(encodeMessage(message));
    } catch (error) {
      logger.warn({ err: error }, 'ipc write failed');
    }
  }

  async function answer(text: string, connection: { subscribed: boolean }): Promise<Reply> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return errorReply(null, 'bad-json', 'the message is not valid JSON');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return errorReply(null, 'bad-json', 'the message is not a JSON object');
    }
    const envelope = value as Record<string, unknown>;
    const id = RequestId.safeParse(envelope.id).success ? (envelope.id as string) : null;
    if (envelope.v !== PROTOCOL_VERSION) {
      return errorReply(
        id,
        'unsupported-version',
        `protocol version ${short(envelope.v)} is not supported; this daemon speaks version ${PROTOCOL_VERSION}`,
      );
    }
    if (!RequestType.safeParse(envelope.type).success)
      return errorReply(id, 'unknown-type', `unknown request type ${short(envelope.type)}`);
    const request = Request.safeParse(value);
    if (!request.success) return errorReply(id, 'bad-request', firstIssue(request.error));
    const type = request.data.type;
    const params = RequestParams[type].safeParse(request.data.params);
    if (!params.success) return errorReply(id, 'bad-request', `bad params for ${type}: ${firstIssue(params.error)}`);

    if (type === 'subscribe') {
      connection.subscribed = true;
      return ok(id, { subscribed: true });
    }
    const handler = handlers[type] as ((params: unknown) => Promise<unknown>) | undefined;
    if (!handler) return errorReply(id, 'not-supported', `this daemon does not handle ${type}`);
    try {
      return ok(id, (await handler(params.data)) ?? null);
    } catch (error) {
      if (AiZenError.isInstance(error)) return errorReply(id, error.code, error.message);
      logger.error({ err: error, type }, 'ipc handler failed');
      return errorReply(id, 'internal', `the daemon failed to answer ${type}: ${describeError(error)}`);
    }
  }

  let closing: Promise<void> | null = null;
  return {
    socketPath,
    publish(event) {
      // An event from an EventBus was checked by its emit already; a second schema pass cost every
      // subscriber ~20 µs (bench g).
      let payload: unknown = event.payload;
      if (!isCheckedEvent(event)) {
        const schema = EventSchemas[event.name] as (typeof EventSchemas)[keyof typeof EventSchemas] | undefined;
        const parsed = schema?.safeParse(event.payload);
        if (!parsed?.success) {
          logger.warn({ event: event.name }, 'refusing to publish an event that does not match the catalogue');
          return;
        }
        payload = parsed.data;
      }
      const frame = encodeMessage({ v: PROTOCOL_VERSION, event: { name: event.name, payload } });
      for (const [socket, connection] of connections) {
        if (!connection.subscribed) continue;
        if (socket.writableLength > MAX_BACKLOG_BYTES) {
          logger.warn('ipc subscriber is not reading; disconnecting it');
          socket.destroy();
          continue;
        }
        if (!socket.destroyed && socket.writable) socket.write(frame);
      }
    },
    subscribers() {
      let count = 0;
      for (const connection of connections.values()) if (connection.subscribed) count += 1;
      return count;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        const netServer = server.server;
        // biome-ignore lint/complexity/useOptionalChain: node-ipc's server is `false` before it listens, which ?. does not cover.
        if (!netServer || !netServer.listening) return resolve();
        netServer.close(() => resolve());
        for (const socket of connections.keys()) {
          socket.end(); // lets replies already written (e.g. to `stop`) reach the client
          setTimeout(() => socket.destroy(), CLOSE_DEADLINE_MS).unref();
        }
      });
      return closing;
    },
  };
}

function ok(id: string | null, result: unknown): Reply {
  return { v: PROTOCOL_VERSION, id, ok: true, result };
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function firstIssue(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid request';
  const where = issue.path.map(String).join('.');
  return where ? `${where}: ${issue.message}` : issue.message;
}
