// The daemon's log: pino to `.ai-zen/logs/daemon.log`, rotated by pino-roll used as a stream in
// this process (a worker-thread transport would lose the last lines of a daemon that exits at
// once, and costs a thread). pino-roll numbers its files (`daemon.3.log`), so they live in
// `.ai-zen/logs/daemon/` and `daemon.log` is a symlink kept on the file being written.
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import roll from 'pino-roll';
import { createLogger, type Logger } from '../log/logger.js';
import { projectPaths } from '../paths.js';
import { readableLogStream } from './readable-log-stream.js';

export interface DaemonLogOptions {
  readonly root: string;
  /** Also print readable lines on stderr (`start --foreground`). */
  readonly foreground: boolean;
  readonly level?: pino.Level;
  /** Rotate past this size (pino-roll units: '10m'). */
  readonly size?: string;
  /** Rotated files kept besides the current one. */
  readonly keep?: number;
}

export interface DaemonLog {
  readonly logger: Logger;
  /** `.ai-zen/logs/daemon.log` (the symlink a person tails). */
  readonly file: string;
  /** Makes what was written durable. The stream stays open: a late line must not throw. */
  close(): Promise<void>;
}

/** Where the daemon's log is, for the CLI (`start` prints it). */
export function daemonLogPath(root: string): string {
  return path.join(projectPaths(root).logs, 'daemon.log');
}

/** Where the detached daemon's stdout and stderr go: what Node prints if it dies before pino can say why. */
export function daemonOutputPath(root: string): string {
  return path.join(projectPaths(root).logs, 'daemon.out');
}

export async function createDaemonLog(options: DaemonLogOptions): Promise<DaemonLog> {
  const link = daemonLogPath(options.root);
  const folder = path.join(path.dirname(link), 'daemon');
  // Synchronous writes: a daemon that exits right after a line (a fatal error, the end of the
  // shutdown) keeps it; the daemon logs little, so the cost does not show.
  const stream = await roll({
    file: path.join(folder, 'daemon'),
    extension: '.log',
    size: options.size ?? '10m',
    limit: { count: options.keep ?? 5 },
    mkdir: true,
    sync: true,
  });
  const pointLink = () => {
    try {
      const target = path.relative(path.dirname(link), stream.file);
      if (fs.readlinkSync(link, { encoding: 'utf8' }) === target) return;
    } catch {
      // missing or not a link: (re)made below
    }
    try {
      fs.rmSync(link, { force: true });
      fs.symlinkSync(path.relative(path.dirname(link), stream.file), link);
    } catch {
      // A folder without symlinks still has the numbered files; nothing to fail for.
    }
  };
  pointLink();
  stream.on('ready', pointLink);
  stream.on('error', () => {}); // a full disk must not kill the daemon through its log

  const destination: pino.DestinationStream = options.foreground
    ? pino.multistream([{ level: 'trace', stream }, { level: 'trace', stream: readableLogStream() }])
    : stream;
  const logger = createLogger({ name: 'ai-zen-daemon', destination, level: options.level ?? 'info' });
  return {
    logger,
    file: link,
    async close() {
      try {
        if (!stream.destroyed) stream.flushSync();
      } catch {
        // nothing buffered, or the file is gone: nothing to save
      }
    },
  };
}
