// A file's stamp (size, inode, times) as one synchronous stat sees it now: what the reconcile pass
// compares with the stamp the reader took before its last read.
import fsSync from 'node:fs';
import { type FileStamp, stampOfStats } from './incremental-reader.js';

/** The stamp of `file`, or null when it is missing or cannot be stat()ed. */
export function stampOf(file: string): FileStamp | null {
  try {
    const stats = fsSync.statSync(file, { throwIfNoEntry: false });
    return stats ? stampOfStats(stats) : null;
  } catch {
    return null;
  }
}

export function sameStamp(a: FileStamp | null, b: FileStamp | null): boolean {
  return a !== null && b !== null && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/**
 * Folder times come from a coarse clock: an entry added in the same tick as a listing (or a stamp)
 * that missed it leaves the folder's mtime as it was. A folder changed this recently before it was
 * listed or stamped is looked at again on the next pass.
 */
export const MTIME_SLACK_MS = 1000;
