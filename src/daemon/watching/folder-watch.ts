// Keeps one folder watched with ONE fs.watch while it exists, and waits for it while it does not.
//
// Not chokidar, measured here: watching a folder, chokidar lists it and lstat()s every entry again
// after each change (throttled to once a second) — with 10,000 sessions and one agent appending 5
// lines a second, the daemon used 132% CPU — and it raises each event only after that work starts
// (0.55 ms after the write against 0.18 ms for fs.watch); the per-file watches it would add instead
// cost 18 MB per 1,000 files. A watch that fails (the inotify limit reached, the folder removed)
// is logged and made again by the watcher's reconcile pass (`ensure`). A folder of our own that goes
// away (`rm -rf .ai-zen`, `git clean -fdx`) is waited for by a watch on the nearest folder above it
// that still exists, so its return is heard at once rather than at the next pass — and never made
// again by us while a removal may still be under way (an `rm -rf` that finds the folder refilled
// fails with ENOTEMPTY).
import fsSync from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { stampOf } from './file-stamp.js';
import type { FileStamp } from './incremental-reader.js';

/**
 * How an entry changed, as fs.watch says: 'change' when only its content did (the name still names
 * the same file); 'rename' when it may now name another file, or none.
 */
export type EntryChange = 'change' | 'rename';

/**
 * Watches one folder: `change` gets the name of each entry that changed (null: the platform did not
 * say which) and how (absent: taken as 'rename'). Throws when it cannot watch.
 */
export type WatchFolder = (
  folder: string,
  handlers: { change(name: string | null, how?: EntryChange): void; error(error: unknown): void },
) => { close(): void };

export const watchWithFsWatch: WatchFolder = (folder, handlers) => {
  const watcher = fsSync.watch(folder, { persistent: true }, (event, name) =>
    handlers.change(name === null ? null : String(name), event === 'change' ? 'change' : 'rename'),
  );
  watcher.on('error', (error) => handlers.error(error));
  return { close: () => watcher.close() };
};

export interface FolderWatchOptions {
  readonly folder: string;
  readonly logger: Logger;
  /** Default: fs.watch. */
  readonly watchFolder?: WatchFolder;
  /** Wait for the folder through a watch above it when it is missing (our own folder; another agent's folders are the transcript watchers' to find). */
  readonly awaitReturn: boolean;
  /** An entry of the folder changed. */
  readonly onEntry: (name: string, how: EntryChange) => void;
  /** Something changed and the platform did not say what: look at everything. */
  readonly onUnknownChange: () => void;
  /** The folder is back and watched: whatever was written before the watch began is found by listing it. */
  readonly onReturn: () => void;
}

export class FolderWatch {
  private watcher: { close(): void } | null = null;
  /** The inode of the folder being watched: a folder removed and made again needs a new watch. */
  private watchedIno: number | null = null;
  /** The last watch failure was logged as a warning; repeats go to debug until a watch works. */
  private failing = false;
  /** Our folder is gone: the watch on the nearest folder above it that exists. */
  private ancestor: { readonly dir: string; close(): void } | null = null;
  private closed = false;

  constructor(private readonly options: FolderWatchOptions) {}

  /** Starts the watch; on failure the reconcile pass carries on alone and calls `ensure`. */
  open(folderStamp: FileStamp | null = stampOf(this.options.folder)): void {
    const { folder, logger } = this.options;
    const watch = this.options.watchFolder ?? watchWithFsWatch;
    try {
      this.watchedIno = folderStamp?.ino ?? null;
      this.watcher = watch(folder, {
        change: (name, how = 'rename') => {
          if (name === null) return this.options.onUnknownChange();
          if (name === path.basename(folder)) {
            // The folder itself was removed or moved: this watch hears nothing more. It is watched
            // again once it exists (its inode may even be the same).
            logger.info({ folder }, 'the session folder went away; watching for its return');
            this.dropWatch();
            this.watchForReturn();
            return;
          }
          this.options.onEntry(name, how);
        },
        error: (error) => {
          logger.warn({ err: error }, 'the session folder watch failed; the reconcile pass covers it and watches again');
          this.dropWatch();
        },
      });
      if (this.failing) logger.info({ folder }, 'watching the session folder again');
      this.failing = false;
    } catch (error) {
      // ENOSPC: the inotify watch limit; ENOENT: the folder is gone for now.
      (this.failing ? logger.debug : logger.warn).call(
        logger,
        { err: error, folder },
        'cannot watch the session folder; the reconcile pass covers it',
      );
      this.failing = true;
      this.watcher = null;
      if (!folderStamp) this.watchForReturn();
    }
  }

  /** Each reconcile pass: a folder made again gets a new watch, a lost watch is made again (or the folder waited for). */
  ensure(folderStamp: FileStamp | null): void {
    if (this.watcher && folderStamp && folderStamp.ino !== this.watchedIno) {
      this.options.logger.info({ folder: this.options.folder }, 'the session folder was made again; watching the new one');
      this.dropWatch();
    }
    if (!this.watcher && !this.closed) {
      if (folderStamp) this.open(folderStamp);
      else this.watchForReturn();
    }
  }

  close(): void {
    this.closed = true;
    this.dropWatch();
    this.dropAncestor();
  }

  /**
   * Our folder is gone: watch the nearest folder above it that exists, and on any change there
   * look again — move the watch down as the path comes back, and once the folder is back, watch it
   * and have it listed. Costs a few stats per change above, only while the folder is missing.
   */
  private watchForReturn(): void {
    if (this.closed || this.watcher || !this.options.awaitReturn) return;
    const { folder } = this.options;
    const stamp = stampOf(folder);
    if (stamp) {
      this.dropAncestor();
      this.open(stamp);
      this.options.onReturn();
      return;
    }
    let dir = path.dirname(folder);
    while (!isDirectory(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
    if (this.ancestor?.dir === dir) return;
    this.dropAncestor();
    const watch = this.options.watchFolder ?? watchWithFsWatch;
    try {
      const handle = watch(dir, { change: () => this.watchForReturn(), error: () => this.dropAncestor() });
      this.ancestor = { dir, close: () => handle.close() };
    } catch {
      // Gone too in the meantime, or no watch to spare: the reconcile pass looks again.
    }
  }

  private dropAncestor(): void {
    this.ancestor?.close();
    this.ancestor = null;
  }

  private dropWatch(): void {
    this.watcher?.close();
    this.watcher = null;
  }
}

function isDirectory(dir: string): boolean {
  try {
    return fsSync.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
