// The compare-and-swap under updateSettingsFile (settings-file.ts), in synchronous system calls
// on purpose: the window in which another writer can change the file between our read and our
// swap is then as short as the calls themselves. Awaited calls each take a trip through libuv's
// thread pool: a round took 5–30 ms that way, and an editor rewriting the file every few ms won
// nearly every round. Settings files are small, and only the CLI writes them.
import { type BigIntStats, closeSync, fstatSync, linkSync, lstatSync, readSync, renameSync, rmSync } from 'node:fs';
import { openRegularFileSync } from '../../fs/open-regular-file.js';

/** A settings file made by us: only its owner reads it (the agents' settings may hold keys). */
export const NEW_FILE_MODE = 0o600;
/** The name the file has while it is taken aside (one at a time: our lock is held). */
export const ASIDE_SUFFIX = '.ai-zen-aside';

export interface Snapshot {
  readonly text: string | null;
  /** inode, size, modification time (null: no file): what the checks around the swap compare. */
  readonly stamp: string | null;
  readonly mode: number;
}

export interface Swap {
  /** Whether our file is at the path now (false: someone created the path between our two steps). */
  readonly placed: boolean;
  /** The file we took aside, open (a descriptor; null: there was none). */
  readonly taken: number | null;
}

export function readSnapshot(file: string): Snapshot {
  let fd: number;
  try {
    fd = openRegularFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { text: null, stamp: null, mode: NEW_FILE_MODE };
    throw error;
  }
  try {
    const text = readAll(fd);
    const stat = fstatSync(fd, { bigint: true });
    return { text, stamp: stampOf(stat), mode: Number(stat.mode) & 0o777 };
  } finally {
    closeSync(fd);
  }
}

/**
 * Takes the file aside by rename, and puts `temp` in by link (never over anything) if what was
 * taken is the very file read: 'changed' (put back, nothing else done) when it is not. A rename
 * cannot compare first and Node has no renameat2(RENAME_EXCHANGE): these two steps each fail
 * instead of replacing someone else's file.
 */
export function swapIn(absolute: string, aside: string, temp: string, read: Snapshot): Swap | 'changed' {
  // A cheap look first: a file that changed since we read it is read again without a swap.
  if (stampNow(absolute) !== read.stamp) return 'changed';
  try {
    renameSync(absolute, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return read.stamp === null ? placeOurs(absolute, aside, temp, null) : 'changed';
  }
  let taken: number | null = null;
  try {
    taken = openRegularFileSync(aside);
  } catch {
    // Not a file we can read (a symlink or a FIFO planted meanwhile): not what we read.
  }
  if (taken !== null && stampOf(fstatSync(taken, { bigint: true })) === read.stamp && readAll(taken) === read.text)
    return placeOurs(absolute, aside, temp, taken);
  // Another writer got in between the look and the take: theirs goes back where it was, at once.
  if (taken !== null) closeSync(taken);
  try {
    linkSync(aside, absolute);
  } catch (error) {
    // Created meanwhile by someone who read theirs (it was at the path till the take): it stands.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  rmSync(aside, { force: true });
  return 'changed';
}

function placeOurs(absolute: string, aside: string, temp: string, taken: number | null): Swap {
  try {
    linkSync(temp, absolute);
    return { placed: true, taken };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return { placed: false, taken };
    // A file system without hard links (some network and FUSE mounts): the rename that replaces,
    // onto the path we just emptied — the window of the old way, but never an error.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS') {
      renameSync(temp, absolute);
      return { placed: true, taken };
    }
    // Never leave the path empty: what we took goes back before the error is told.
    if (taken !== null) {
      closeSync(taken);
      try {
        linkSync(aside, absolute);
      } catch {}
    }
    throw error;
  }
}

/**
 * A crash between the two steps of a swap leaves the file aside and the path empty: put it back (a
 * regular file only). An aside beside a file (a crash after the link, or someone — the agent —
 * wrote the path before this run) is never deleted unread: it is dropped when the file holds the
 * same text, else kept under a dated name beside it. Whether anything was found.
 */
export function putBackAside(absolute: string, aside: string, now: Date = new Date()): boolean {
  let found: ReturnType<typeof lstatSync> | undefined;
  try {
    found = lstatSync(aside);
  } catch {
    return false;
  }
  if (!found.isFile()) {
    rmSync(aside, { force: true });
    return true;
  }
  try {
    linkSync(aside, absolute);
    rmSync(aside, { force: true });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (readSnapshot(aside).text === readSnapshot(absolute).text) rmSync(aside, { force: true });
  else renameSync(aside, `${absolute}.ai-zen-before-${now.toISOString().replace(/[:.]/g, '-')}`);
  return true;
}

/** The whole file behind `fd`, from its start (an open file we read again and again). */
export function readAll(fd: number): string {
  const chunks: Buffer[] = [];
  let position = 0;
  for (;;) {
    const buffer = Buffer.alloc(64 * 1024);
    const bytesRead = readSync(fd, buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return Buffer.concat(chunks).toString('utf8');
}

// No change time: the take (a rename) moves it.
function stampOf(stat: BigIntStats): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
}

/** The path's stamp now (null: nothing there), without reading. */
function stampNow(file: string): string | null {
  try {
    return stampOf(lstatSync(file, { bigint: true }));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
