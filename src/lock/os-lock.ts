// An OS-held lock: a listening Unix socket file in the user's private run folder
// (`$AI_ZEN_HOME/run`, 0700). The kernel closes the socket when the process dies, however it dies
// (kill -9 included); the file it leaves refuses connections and is taken over by the next holder.
//
// Why not Linux abstract sockets (what this was before; T6): they have no
// permissions and every user can read their names in /proc/net/unix, so another local user could
// bind a lock's name first (`start` says "already running" for ever) or hold a session's name (the
// session looks owned and is never migrated). A folder only we can enter closes both; and it does
// not depend on TMPDIR or XDG_RUNTIME_DIR, so every shell of the user finds the same lock.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { AiZenError } from '../errors.js';
import { runFolder, type Env } from '../paths.js';
import { LOCK_NAME_PATTERN } from './lock-names.js';
import { ensurePrivateDir } from './runtime-dir.js';

export { daemonLockName, sessionLockName } from './lock-names.js';

const MAX_LOCK_PATH_BYTES = 100;

export interface LockOptions {
  readonly env?: Env;
  /** Folder of the lock files; default `$AI_ZEN_HOME/run` (made 0700, checked to be ours). */
  readonly directory?: string;
}

export interface AcquireOptions extends LockOptions {
  /**
   * Who holds it (one short line, e.g. `{"kind":"daemon","pid":12}`): told to whoever connects, so
   * a refused process can say who has the lock instead of guessing.
   */
  readonly holder?: string;
}

/** How long lockHolder waits for the holder's line; a holder that says nothing in time is unnamed. */
const HOLDER_READ_MS = 2000;
const MAX_HOLDER_BYTES = 512;

export interface HeldLock {
  readonly name: string;
  /** The socket file. */
  readonly address: string;
  /** False once released or when the socket was closed under us. */
  readonly held: boolean;
  /** Frees the lock; idempotent. */
  release(): Promise<void>;
}

/** Takes the lock, or returns null when another live process holds it. */
export async function acquireLock(name: string, options: AcquireOptions = {}): Promise<HeldLock | null> {
  const address = await lockAddress(name, options);
  // Bound under a name of our own, then hard-linked into place: link() fails when the name exists,
  // so of two processes only one can put its socket there (a listen() on the name itself cannot
  // tell a live holder's file from a dead one's).
  const temporary = `${address}.${randomBytes(4).toString('hex')}`;
  // Unix socket paths past 104–108 bytes are cut silently; refuse with a way out instead.
  if (Buffer.byteLength(temporary) > MAX_LOCK_PATH_BYTES) {
    throw new AiZenError(
      'daemon',
      `lock path ${temporary} is over the ${MAX_LOCK_PATH_BYTES} bytes a socket path may have; set AI_ZEN_HOME to a shorter folder`,
    );
  }
  const bound = await tryListen(temporary, options.holder);
  if (!bound.server) throw lockError(name, bound.error);
  const server = bound.server;
  try {
    const inode = (await fs.stat(temporary)).ino;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      try {
        await fs.link(temporary, address);
        return new SocketLock(name, address, server, inode);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw lockError(name, error as Error);
      }
      const existing = await fs.lstat(address).catch(() => null);
      if (!existing) continue;
      if (await answers(address)) break;
      await removeIfStill(address, existing.ino);
    }
    await closeServer(server);
    return null;
  } catch (error) {
    await closeServer(server);
    throw error;
  } finally {
    await fs.rm(temporary, { force: true });
  }
}

/** True when a live process holds the lock. Connects only; never takes the lock, even for a moment. */
export async function isLockHeld(name: string, options: LockOptions = {}): Promise<boolean> {
  return answers(await lockAddress(name, options));
}

/**
 * The line the live holder of the lock tells about itself (AcquireOptions.holder); null when
 * nobody holds it, or the holder names nobody (an older ai-zen, or one that does not answer in time).
 */
export async function lockHolder(name: string, options: LockOptions = {}): Promise<string | null> {
  const address = await lockAddress(name, options);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const socket = net.connect({ path: address });
    const done = (value: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(null), HOLDER_READ_MS);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > MAX_HOLDER_BYTES) done(null);
    });
    socket.once('end', () => done(Buffer.concat(chunks).toString('utf8').trim() || null));
    socket.once('close', () => done(Buffer.concat(chunks).toString('utf8').trim() || null));
    socket.once('error', () => done(null));
  });
}

/**
 * Removes a dead holder's file — only if it is still that file. Renamed away first (atomic), then
 * checked: when a live lock was moved by mistake (someone took the name between our look and the
 * rename) it is linked straight back.
 */
async function removeIfStill(address: string, inode: number): Promise<void> {
  const aside = `${address}.${randomBytes(4).toString('hex')}`;
  try {
    await fs.rename(address, aside);
  } catch {
    return; // gone already: someone else cleared it
  }
  const moved = await fs.lstat(aside).catch(() => null);
  if (moved && moved.ino !== inode) await fs.link(aside, address).catch(() => {});
  await fs.rm(aside, { force: true });
}

class SocketLock implements HeldLock {
  private released = false;
  private closing: Promise<void> | null = null;

  constructor(
    readonly name: string,
    readonly address: string,
    private readonly server: net.Server,
    private readonly inode: number,
  ) {
    server.on('close', () => (this.released = true));
  }

  get held(): boolean {
    return !this.released && this.server.listening;
  }

  release(): Promise<void> {
    this.closing ??= (async () => {
      this.released = true;
      // Our file only: a successor's lock at the same name is not ours to remove.
      const current = await fs.lstat(this.address).catch(() => null);
      if (current?.ino === this.inode) await fs.rm(this.address, { force: true });
      await closeServer(this.server);
    })();
    return this.closing;
  }
}

async function lockAddress(name: string, options: LockOptions): Promise<string> {
  if (!LOCK_NAME_PATTERN.test(name)) throw new AiZenError('daemon', `invalid lock name ${JSON.stringify(name)}`);
  let directory = options.directory;
  if (directory === undefined) {
    directory = runFolder(options.env);
    await ensurePrivateDir(directory);
  }
  return path.join(directory, `${name}.lock`);
}

type ListenOutcome = { server: net.Server } | { server?: undefined; error: Error };

function tryListen(address: string, holder: string | undefined): Promise<ListenOutcome> {
  return new Promise((resolve) => {
    // Whoever connects (isLockHeld, lockHolder) learns that we are alive and, if given, who we
    // are; then the connection is closed at once. Only our own user can reach the folder (0700).
    const server = net.createServer((socket) => {
      socket.on('error', () => {});
      if (holder === undefined) socket.destroy();
      else socket.end(`${holder}\n`);
    });
    const onError = (error: Error) => resolve({ error });
    server.once('error', onError);
    server.listen({ path: address }, () => {
      server.off('error', onError);
      // A lock must not keep the process alive; it stays bound until release() or exit.
      server.unref();
      server.on('error', () => {});
      fs.chmod(address, 0o600).then(
        () => resolve({ server }),
        () => resolve({ server }),
      );
    });
  });
}

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
  });
}

function answers(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ path: address });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    // ECONNREFUSED (a dead holder's file, or not a socket), ENOENT (no file): nobody holds it.
    // Anything else (EAGAIN: a full backlog of a busy holder) means someone listens there.
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT'));
  });
}

function lockError(name: string, error: Error): AiZenError {
  return new AiZenError('daemon', `could not take the lock ${name}: ${error.message}`, { cause: error });
}
