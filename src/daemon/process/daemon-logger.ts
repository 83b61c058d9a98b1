// The daemon's log: pino to `.ai-zen/logs/daemon.log`, rotated by size the way logrotate does it
// (rotating-file-stream in its classic mode): the file being written is always `daemon.log`, the
// older ones `daemon.log.1` (newest) … `daemon.log.N`, so `tail -F daemon.log` follows the log
// across rotations. Not pino-roll: it loads all of date-fns to name its files, measured at 15 MB
// resident and 0.2 s of start-up — a fifth of the daemon's idle memory (bench c).
import fs from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { createStream, type RotatingFileStream } from 'rotating-file-stream';
import { createLogger } from '../../log/logger.js';
import { projectPaths } from '../../paths.js';
import { readableLogStream } from './readable-log-stream.js';

export interface DaemonLogOptions {
  readonly root: string;
  /** Also print readable lines on stderr (`start --foreground`). */
  readonly foreground: boolean;
  readonly level?: pino.Level;
  /** Rotate past this size (rotating-file-stream units: '10M', '512K'). */
  readonly size?: string;
  /** Rotated files kept besides the current one. */
  readonly keep?: number;
}

export interface DaemonLog {
  readonly logger: Logger;
  /** `.ai-zen/logs/daemon.log`, the file being written. */
  readonly file: string;
  /**
   * Opens `daemon.log` again when it is gone (`rm -rf .ai-zen` under a running daemon):
   * lines written to a removed file are lost to everyone. True when it did.
   */
  reopenIfGone(): Promise<boolean>;
  /** Writes out what is buffered and closes the file; a line logged later is dropped, never thrown. */
  close(): Promise<void>;
}

/** How long close() waits for buffered lines to reach the file. */
const CLOSE_DEADLINE_MS = 2000;

/** Where the daemon's log is, for the CLI (`start` prints it). */
export function daemonLogPath(root: string): string {
  return path.join(projectPaths(root).logs, 'daemon.log');
}

/** Where the detached daemon's stdout and stderr go: what Node prints if it dies before pino can say why. */
export function daemonOutputPath(root: string): string {
  return path.join(projectPaths(root).logs, 'daemon.out');
}

export async function createDaemonLog(options: DaemonLogOptions): Promise<DaemonLog> {
  const file = daemonLogPath(options.root);
  const folder = path.dirname(file);
  await fs.promises.mkdir(folder, { recursive: true });
  // Earlier versions made daemon.log a symlink to a numbered file; rotating would move the link.
  if ((await fs.promises.lstat(file).catch(() => null))?.isSymbolicLink()) await fs.promises.rm(file, { force: true });
  const name = path.basename(file);
  const open = async (): Promise<RotatingFileStream> => {
    await fs.promises.mkdir(folder, { recursive: true });
    // In the classic mode the generator gets the rotation index (1 = newest), or null for the current file.
    const opened: RotatingFileStream = createStream(
      (index: number | Date) => (typeof index === 'number' && index > 0 ? `${name}.${index}` : name),
      {
        path: folder,
        size: options.size ?? '10M',
        rotate: options.keep ?? 5,
      },
    );
    await new Promise<void>((resolve, reject) => {
      opened.once('open', () => resolve());
      opened.once('error', reject);
    });
    // A full disk must not kill the daemon through its log; the stream is done after an error.
    opened.on('error', () => {});
    opened.on('warning', () => {});
    return opened;
  };
  let stream = await open();
  // pino writes through this, so the file can be opened again under it (reopenIfGone).
  const current = { write: (line: string) => stream.write(line) };

  const destination: pino.DestinationStream = options.foreground
    ? pino.multistream([
        { level: 'trace', stream: current },
        { level: 'trace', stream: readableLogStream() },
      ])
    : current;
  const logger = createLogger({ name: 'ai-zen-daemon', destination, level: options.level ?? 'info' });
  let closing: Promise<void> | null = null;
  let reopening: Promise<boolean> | null = null;
  return {
    logger,
    file,
    reopenIfGone() {
      reopening ??= (async () => {
        if (
          closing ||
          (await fs.promises.stat(file).then(
            () => true,
            () => false,
          ))
        )
          return false;
        const old = stream;
        stream = await open();
        old.end();
        return true;
      })()
        .catch(() => false)
        .finally(() => (reopening = null));
      return reopening;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        if (stream.destroyed || stream.writableFinished) return resolve();
        const deadline = setTimeout(resolve, CLOSE_DEADLINE_MS);
        deadline.unref();
        stream.end(() => {
          clearTimeout(deadline);
          resolve();
        });
      });
      return closing;
    },
  };
}
