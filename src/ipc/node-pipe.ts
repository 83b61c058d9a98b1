// The pipe handle node:net is built on (libuv's, reached through process.binding), for the lean
// entries a hook or a statusline refresh runs: loading node:net and the streams under it cost ~4 ms
// of CPU, 0.2× a bare node start (bench item h), more than all the rest such a run does. The binding
// is Node's own internal, so it is used only on the Node majors it was tried on, and only when every
// piece is where it was there; otherwise nodePipe() is null and the caller takes node:net.
import { getSystemErrorName } from 'node:util';

/**
 * The Node majors this was run on with test/ipc/one-request.test.ts: 20, 22, 24 and 26 (the short-lived
 * odd ones between are taken on trust). A newer major gets node:net until it has been run there too.
 */
const TRIED_MAJORS = { lowest: 20, highest: 26 };

export interface PipeEvents {
  /** A chunk as it arrives (a view of the bytes read, handed over). */
  data(chunk: Buffer): void;
  /** The stream is over: `code` as node:net names it, `EOF` at its end; at most once. */
  end(code: string, message: string): void;
}

export type ConnectEvents = PipeEvents & { connected(): void };

export interface PipeStream {
  write(text: string): void;
  /** Stops reading; a connection is closed, a descriptor given to `read` stays the process's. */
  close(): void;
}

export interface NodePipe {
  /** Connects to a Unix socket: `connected`, then the events; a failure to connect is an `end`. */
  connect(path: string, events: ConnectEvents): PipeStream;
  /** Reads a descriptor that is a pipe or a socket (stdin) without blocking the process. */
  read(fd: number, events: PipeEvents): PipeStream;
}

interface Handle {
  connect(request: object, path: string): number | undefined;
  open(fd: number): number | undefined;
  readStart(): number;
  readStop(): number;
  writeUtf8String(request: object, text: string): number;
  close(): void;
  onread: (buffer: ArrayBuffer | undefined) => void;
}

interface Request {
  oncomplete: ((status: number) => void) | null;
  handle?: Handle;
  async?: boolean;
}

interface Bindings {
  readonly Pipe: new (type: number) => Handle;
  readonly PipeConnectWrap: new () => Request;
  readonly WriteWrap: new () => Request;
  readonly socketType: number;
  readonly state: Int32Array;
  readonly readBytes: number;
  readonly readOffset: number;
  readonly eof: number;
}

let bindings: Bindings | null | undefined;
const ignore = () => {};

/** The pipe handle, or null where it is not as it was on the tried Node majors. */
export function nodePipe(): NodePipe | null {
  if (bindings === undefined) bindings = loadBindings();
  const found = bindings;
  return found === null ? null : { connect: (path, events) => connect(found, path, events), read: (fd, events) => read(found, fd, events) };
}

function loadBindings(): Bindings | null {
  const major = Number(process.versions.node.split('.')[0]);
  const binding = (process as { binding?: (name: string) => unknown }).binding;
  if (!(major >= TRIED_MAJORS.lowest && major <= TRIED_MAJORS.highest) || typeof binding !== 'function' || pendingDeprecation())
    return null;
  try {
    const pipe = binding('pipe_wrap') as Record<string, unknown> & { constants?: { SOCKET?: unknown } };
    const stream = binding('stream_wrap') as Record<string, unknown>;
    const uv = binding('uv') as Record<string, unknown>;
    const { Pipe, PipeConnectWrap } = pipe;
    const { WriteWrap, streamBaseState, kReadBytesOrError, kArrayBufferOffset } = stream;
    const socketType = pipe.constants?.SOCKET;
    const prototype = (Pipe as { prototype?: Record<string, unknown> } | undefined)?.prototype;
    const methods = ['connect', 'open', 'readStart', 'readStop', 'writeUtf8String', 'close'];
    if (
      typeof Pipe !== 'function' ||
      typeof PipeConnectWrap !== 'function' ||
      typeof WriteWrap !== 'function' ||
      !(streamBaseState instanceof Int32Array) ||
      typeof kReadBytesOrError !== 'number' ||
      typeof kArrayBufferOffset !== 'number' ||
      typeof socketType !== 'number' ||
      typeof uv.UV_EOF !== 'number' ||
      !methods.every((name) => typeof prototype?.[name] === 'function')
    )
      return null;
    return {
      Pipe: Pipe as Bindings['Pipe'],
      PipeConnectWrap: PipeConnectWrap as Bindings['PipeConnectWrap'],
      WriteWrap: WriteWrap as Bindings['WriteWrap'],
      socketType,
      state: streamBaseState,
      readBytes: kReadBytesOrError,
      readOffset: kArrayBufferOffset,
      eof: uv.UV_EOF,
    };
  } catch {
    // A Node that refuses the binding (its permission model, a removed name): node:net.
    return null;
  }
}

/** Where Node is told to warn of pending deprecations, process.binding would print one on stderr: node:net. */
function pendingDeprecation(): boolean {
  return (
    process.env.NODE_PENDING_DEPRECATION === '1' ||
    process.execArgv.includes('--pending-deprecation') ||
    (process.env.NODE_OPTIONS ?? '').includes('--pending-deprecation')
  );
}

function connect(found: Bindings, path: string, events: ConnectEvents): PipeStream {
  const handle = new found.Pipe(found.socketType);
  const stream = streamOf(found, handle, events, true);
  const request = new found.PipeConnectWrap();
  request.oncomplete = (status) => {
    if (status < 0) return stream.fail(status, `connect ${path}`);
    events.connected();
    stream.start();
  };
  stream.settle(handle.connect(request, path), `connect ${path}`);
  return stream;
}

function read(found: Bindings, fd: number, events: PipeEvents): PipeStream {
  const handle = new found.Pipe(found.socketType);
  const stream = streamOf(found, handle, events, false);
  const status = handle.open(fd);
  if (typeof status === 'number' && status < 0) stream.settle(status, `open ${fd}`);
  else stream.start();
  return stream;
}

function streamOf(found: Bindings, handle: Handle, events: PipeEvents, owned: boolean) {
  let over = false;
  const close = () => {
    if (over) return;
    over = true;
    // A function always: Node asserts that onread is one (setting null aborts the process).
    handle.onread = ignore;
    handle.readStop();
    if (owned) handle.close();
  };
  const fail = (status: number, what: string) => {
    if (over) return;
    close();
    const code = status === found.eof ? 'EOF' : getSystemErrorName(status);
    events.end(code, status === found.eof ? 'the other end closed it' : `${what}: ${code}`);
  };
  return {
    fail,
    /** A status returned at once: its failure is told as node:net tells one, after the caller's turn. */
    settle(status: number | undefined, what: string) {
      if (typeof status === 'number' && status < 0) process.nextTick(fail, status, what);
    },
    start() {
      handle.onread = (buffer) => {
        const count = found.state[found.readBytes]!;
        if (count > 0 && buffer !== undefined) events.data(Buffer.from(buffer, found.state[found.readOffset], count));
        else if (count < 0) fail(count, 'read');
      };
      const status = handle.readStart();
      if (status < 0) process.nextTick(fail, status, 'read');
    },
    write(text: string) {
      if (over) return;
      const request = new found.WriteWrap();
      request.handle = handle;
      request.async = false;
      // Called only when the write could not finish at once (node:net keeps no reference either).
      request.oncomplete = (status) => {
        if (status < 0) fail(status, 'write');
      };
      const status = handle.writeUtf8String(request, text);
      if (status < 0) process.nextTick(fail, status, 'write');
    },
    close,
  };
}
