// A client of the daemon's IPC server (the CLI's `ai-zen-daemon status|stop|…`). It fails fast:
// a refused or missing socket means no daemon is running. A plain Unix socket (node:net), not
// node-ipc's client: in raw mode that client is only a socket with retries (which must stay off)
// that decodes each chunk to a string and encodes it back to a Buffer, on the path of every event
// a subscriber waits for (bench g). The wire is the same either way (README in this folder).
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { AiZenError, type ErrorCode } from '../errors.js';
import type { AnyEvent } from '../events.js';
import { FrameDecoder } from './frame-decoder.js';
import { encodeMessage, MAX_REPLY_BYTES, parseEvent, PROTOCOL_VERSION, Reply, type RequestParams, type RequestType } from './protocol.js';

export interface ConnectOptions {
  readonly socketPath: string;
  /** How long to wait for the connection, and by default for each reply. */
  readonly timeoutMs?: number;
  /** Named in error messages ("no daemon is running for <repoRoot>"). */
  readonly repoRoot?: string;
}

export interface IpcClient {
  /** Sends a request and resolves with its result; a refusal rejects with an IpcRequestError. */
  request<T = unknown, K extends RequestType = RequestType>(
    type: K,
    params?: RequestParams<K>,
    options?: { timeoutMs?: number },
  ): Promise<T>;
  /** Subscribes to the event stream; returns a function that stops this listener. */
  subscribe(onEvent: (event: AnyEvent) => void): Promise<() => void>;
  /** Resolves when the connection is gone (closed by either side). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** A request the daemon answered with an error; `remoteCode` is its code (protocol or AiZenError code). */
export class IpcRequestError extends AiZenError {
  constructor(
    readonly remoteCode: string,
    message: string,
  ) {
    super(isErrorCode(remoteCode) ? remoteCode : 'ipc', message);
  }
}

const ERROR_CODES: readonly string[] = [
  'config',
  'model',
  'aborted',
  'context-guard',
  'session',
  'usage',
  'handoff',
  'confinement',
  'daemon',
  'ipc',
] satisfies ErrorCode[];
function isErrorCode(code: string): code is ErrorCode {
  return ERROR_CODES.includes(code);
}

const DEFAULT_TIMEOUT_MS = 10_000;

export async function connectIpc(options: ConnectOptions): Promise<IpcClient> {
  const { socketPath } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const repo = options.repoRoot ?? socketPath;
  const socket = net.createConnection({ path: socketPath });

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new AiZenError('daemon', `the daemon for ${repo} did not accept a connection within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED')
        reject(new AiZenError('daemon', `no daemon is running for ${repo}`, { cause: error }));
      else
        reject(
          new AiZenError('daemon', `could not connect to the daemon for ${repo} at ${socketPath}: ${error.message}`, { cause: error }),
        );
    });
  });
  socket.on('error', () => {}); // reported through `closed` and pending requests

  const pending = new Map<string, { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  const listeners = new Set<(event: AnyEvent) => void>();
  const decoder = new FrameDecoder(MAX_REPLY_BYTES);
  let subscribed: Promise<unknown> | null = null;

  socket.on('data', (chunk: Buffer) => {
    for (const frame of decoder.push(chunk)) {
      if (frame.kind === 'too-large') continue; // cannot be matched to a request; its request times out
      let value: unknown;
      try {
        value = JSON.parse(frame.text);
      } catch {
        continue;
      }
      if (typeof value === 'object' && value !== null && 'event' in value) {
        const event = parseEvent(value);
        if (event) for (const listener of [...listeners]) listener(event);
        continue;
      }
      const reply = Reply.safeParse(value);
      if (!reply.success || reply.data.id === null) continue;
      const waiting = pending.get(reply.data.id);
      if (!waiting) continue;
      pending.delete(reply.data.id);
      clearTimeout(waiting.timer);
      if (reply.data.ok) waiting.resolve(reply.data.result);
      else waiting.reject(new IpcRequestError(reply.data.error.code, reply.data.error.message));
    }
  });

  const closed = new Promise<void>((resolve) => {
    socket.once('close', () => {
      for (const [, waiting] of pending) {
        clearTimeout(waiting.timer);
        waiting.reject(new AiZenError('daemon', `the daemon for ${repo} closed the connection before answering`));
      }
      pending.clear();
      resolve();
    });
  });

  function request<T>(type: RequestType, params?: unknown, requestOptions: { timeoutMs?: number } = {}): Promise<T> {
    if (socket.destroyed) return Promise.reject(new AiZenError('daemon', `the connection to the daemon for ${repo} is closed`));
    const requestId = randomUUID();
    const limit = requestOptions.timeoutMs ?? timeoutMs;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(requestId);
        reject(new AiZenError('daemon', `the daemon for ${repo} did not answer ${type} within ${limit} ms`));
      }, limit);
      pending.set(requestId, { resolve: resolve as (value: unknown) => void, reject, timer });
      socket.write(encodeMessage({ v: PROTOCOL_VERSION, id: requestId, type, ...(params === undefined ? {} : { params }) }));
    });
  }

  return {
    request,
    async subscribe(onEvent) {
      listeners.add(onEvent);
      try {
        subscribed ??= request('subscribe');
        await subscribed;
      } catch (error) {
        listeners.delete(onEvent);
        subscribed = null;
        throw error;
      }
      return () => listeners.delete(onEvent);
    },
    closed,
    async close() {
      socket.destroy();
      await closed;
    },
  };
}
