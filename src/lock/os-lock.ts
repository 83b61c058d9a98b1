// An OS-held lock: a listening Unix socket. The kernel closes it when the process dies, however it
// dies (kill -9 included), so nothing stale can block the next holder — unlike a pid file.
// Linux: the abstract namespace ('\0ai-zen/<name>'), which has no file at all.
// Elsewhere: a socket file in the private runtime folder; a file whose socket refuses connections
// is stale (its process died) and is removed once.
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { AiZenError } from '../errors.js';
import { ensureRuntimeDir, type RuntimeDirOptions } from './runtime-dir.js';
import { LOCK_NAME_PATTERN } from './lock-names.js';

export { daemonLockName, sessionLockName } from './lock-names.js';

export type LockStrategy = 'abstract' | 'file';

export interface LockOptions extends RuntimeDirOptions {
  /** Default: 'abstract' on Linux, 'file' elsewhere. Tests force 'file' to cover it on Linux. */
  readonly strategy?: LockStrategy;
  /** Folder for 'file' locks; default the private runtime folder. */
  readonly directory?: string;
}

export interface HeldLock {
  readonly name: string;
  /** The socket address (abstract names start with '\0'). */
  readonly address: string;
  /** False once released or when the socket was closed under us. */
  readonly held: boolean;
  /** Frees the lock; idempotent. */
  release(): Promise<void>;
}

/** Takes the lock, or returns null when another live process holds it. */
export async function acquireLock(name: string, options: LockOptions = {}): Promise<HeldLock | null> {
  const address = await lockAddress(name, options);
  const first = await tryListen(address);
  if (first.server) return new SocketLock(name, address, first.server);
  if (first.code !== 'EADDRINUSE') throw lockError(name, first.error);
  if (address.startsWith('\0')) return null; // abstract names vanish with their process: in use means held
  if (await answers(address)) return null;
  // Stale socket file of a dead holder. Two processes may both judge it stale at once and the
  // later unlink can remove the earlier one's fresh socket; that window only exists off Linux.
  await fs.rm(address, { force: true });
  const second = await tryListen(address);
  if (second.server) return new SocketLock(name, address, second.server);
  if (second.code === 'EADDRINUSE') return null;
  throw lockError(name, second.error);
}

/** True when a live process holds the lock. Connects only; never takes the lock, even for a moment. */
export async function isLockHeld(name: string, options: LockOptions = {}): Promise<boolean> {
  return answers(await lockAddress(name, options));
}

class SocketLock implements HeldLock {
  private released = false;
  private closing: Promise<void> | null = null;

  constructor(
    readonly name: string,
    readonly address: string,
    private readonly server: net.Server,
  ) {
    server.on('close', () => (this.released = true));
  }

  get held(): boolean {
    return !this.released && this.server.listening;
  }

  release(): Promise<void> {
    // net.Server.close() also unlinks a socket file (libuv does it for the path it bound).
    this.closing ??= new Promise<void>((resolve) => {
      this.released = true;
      if (!this.server.listening) return resolve();
      this.server.close(() => resolve());
    });
    return this.closing;
  }
}

async function lockAddress(name: string, options: LockOptions): Promise<string> {
  if (!LOCK_NAME_PATTERN.test(name)) throw new AiZenError('daemon', `invalid lock name ${JSON.stringify(name)}`);
  const strategy = options.strategy ?? (process.platform === 'linux' ? 'abstract' : 'file');
  if (strategy === 'abstract') return `\0ai-zen/${name}`;
  const directory = options.directory ?? (await ensureRuntimeDir(options));
  return path.join(directory, `${name}.lock`);
}

type ListenOutcome = { server: net.Server } | { server?: undefined; code: string | undefined; error: Error };

function tryListen(address: string): Promise<ListenOutcome> {
  return new Promise((resolve) => {
    // Whoever connects (isLockHeld) only learns that we are alive; drop them at once.
    const server = net.createServer((socket) => socket.destroy());
    const onError = (error: NodeJS.ErrnoException) => resolve({ code: error.code, error });
    server.once('error', onError);
    server.listen({ path: address }, () => {
      server.off('error', onError);
      // A lock must not keep the process alive; it stays bound until release() or exit.
      server.unref();
      server.on('error', () => {});
      if (!address.startsWith('\0')) {
        fs.chmod(address, 0o600).then(
          () => resolve({ server }),
          () => resolve({ server }),
        );
      } else resolve({ server });
    });
  });
}

function answers(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ path: address });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    // ECONNREFUSED (abstract name free, or a stale file), ENOENT (no file): nobody holds it.
    // Anything else (EAGAIN: a full backlog of a busy holder) means someone listens there.
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT'));
  });
}

function lockError(name: string, error: Error): AiZenError {
  return new AiZenError('daemon', `could not take the lock ${name}: ${error.message}`, { cause: error });
}
