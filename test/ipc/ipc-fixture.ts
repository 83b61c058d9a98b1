// A real IPC server on a real socket in a private temp folder, with a real pino logger that
// records its lines in memory, plus a raw `net` client for writing bytes the protocol does not expect.
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { acquireLock, type HeldLock } from '../../src/lock/os-lock.js';
import type { ConnectionLimits } from '../../src/ipc/connection-limits.js';
import { startIpcServer, type IpcHandlers, type IpcServer } from '../../src/ipc/server.js';
import { memoryLogger, type LogRecord } from '../support/memory-logger.js';
import { waitFor } from '../support/wait-for.js';

export interface IpcFixture {
  readonly dir: string;
  readonly socketPath: string;
  readonly server: IpcServer;
  readonly lock: HeldLock;
  /** What the server logged. */
  readonly logLines: LogRecord[];
  cleanup(): Promise<void>;
}

export async function startFixture(
  handlers: IpcHandlers,
  options: { maxRequestBytes?: number; limits?: Partial<ConnectionLimits> } = {},
): Promise<IpcFixture> {
  // Short on purpose: socket paths have a length limit.
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'azi-'));
  const socketDir = path.join(dir, 'rt');
  const socketPath = path.join(socketDir, 'd.sock');
  const lock = await acquireLock(`test-ipc-${randomUUID().slice(0, 8)}`);
  if (!lock) throw new Error('could not take a fresh test lock');
  const log = memoryLogger();
  const server = await startIpcServer({ socketPath, handlers, logger: log.logger, lock, ...options });
  return {
    dir,
    socketPath,
    server,
    lock,
    logLines: log.records,
    async cleanup() {
      await server.close();
      await lock.release();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** A raw client: write any bytes, read every frame the server sends back. */
export class RawClient {
  readonly frames: unknown[] = [];
  private buffer = '';
  private constructor(readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      this.buffer += text;
      let end: number;
      while ((end = this.buffer.indexOf('\f')) >= 0) {
        this.frames.push(JSON.parse(this.buffer.slice(0, end)));
        this.buffer = this.buffer.slice(end + 1);
      }
    });
  }

  static connect(socketPath: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ path: socketPath });
      socket.once('connect', () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(data, (error) => (error ? reject(error) : resolve())));
  }

  /** Waits for the n-th frame (1-based) and returns it. */
  async frame(n: number): Promise<Record<string, unknown>> {
    await waitFor(() => this.frames.length >= n, { message: `frame ${n} from the server` });
    return this.frames[n - 1] as Record<string, unknown>;
  }

  close(): void {
    this.socket.destroy();
  }
}
