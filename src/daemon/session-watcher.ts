// Watches `.ai-zen/sessions/` (D1) and keeps one incremental reader per session file.
//
// ONE fs.watch on the folder: its events name the file that changed, and each event reads that
// file to its END (the reader only reads appended bytes), so events merged or dropped under load
// lose nothing as long as one comes. Not chokidar, measured here: watching a folder, chokidar
// lists it and lstat()s every entry again after each change (throttled to once a second) — with
// 10,000 sessions and one agent appending 5 lines a second, the daemon used 132% CPU — and it
// raises each event only after that work starts (0.55 ms after the write against 0.18 ms for
// fs.watch); the per-file watches it would add instead cost 18 MB per 1,000 files. What chokidar
// would add over fs.watch for one flat folder — a rescan when events are lost — is the reconcile
// pass below: when the inotify watch limit or its queue overflows, events are lost with no error,
// so a slow pass re-checks the open sessions and re-lists the folder when its mtime moved, as
// watchman rescans. A watch that fails (the limit reached, the folder removed) is logged and made
// again by that pass. A closed (migrated) session needs no further work: it drops out of the pass
// and its events are ignored. A folder of our own that goes away (`rm -rf .ai-zen`, `git clean
// -fdx`) is waited for by a watch on the nearest folder above it that still exists, so its return
// is heard at once rather than at the next pass — and never made again by us while a removal may
// still be under way (an `rm -rf` that finds the folder refilled fails with ENOTEMPTY).
//
// The reconcile pass must stay cheap with thousands of sessions: it compares one synchronous stat
// per file with the size/inode/times taken before the last read, and reads only on a difference.
// Sessions that changed in the last few minutes (the hot set) are checked every pass; idle ones in
// a window that moves round a ring of every open session, each about every COLD_PERIOD_MS — an
// idle session whose event was lost is found a little later. A pass touches only the hot set and
// its window, never every session: run every few seconds, this code stays in V8's interpreter,
// where a walk over 1,000 map entries alone cost ~1.5 ms a pass (measured, bench c).
import fsSync, { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { mapLimited } from '../map-limited.js';
import { NotRegularFileError, stampOfStats, type FileStamp } from './incremental-reader.js';
import { findSource, type SessionReader, type SessionSource, type SessionState, type SessionUpdate } from './session-source.js';

export interface SessionWatcherOptions {
  readonly folder: string;
  readonly sources: readonly SessionSource[];
  readonly logger: Logger;
  /** Default 5000 ms. */
  readonly reconcileIntervalMs?: number;
  /**
   * Every update that read something, found the file gone, or started over. `initial` is true for
   * the first read of the files present at start (history, not news).
   */
  readonly onUpdate: (update: SessionUpdate, info: { readonly initial: boolean }) => void;
  /** After each reconcile pass (the daemon re-checks owners of overflowed sessions then). */
  readonly onReconcile?: () => void;
  /** Default: fs.watch. A test passes one that drops every event, as an overflowed inotify queue does. */
  readonly watchFolder?: WatchFolder;
  /** Wall clock in ms (file times are compared with it). */
  readonly now?: () => number;
  /** Make the folder when it is missing (default true: ai-zen's own; another agent's folders are only read). */
  readonly create?: boolean;
}

/** Watches one folder: `change` gets the name of each entry that changed (null: the platform did not say which). Throws when it cannot watch. */
export type WatchFolder = (
  folder: string,
  handlers: { change(name: string | null): void; error(error: unknown): void },
) => { close(): void };

const watchWithFsWatch: WatchFolder = (folder, handlers) => {
  const watcher = fsSync.watch(folder, { persistent: true }, (_event, name) => handlers.change(name === null ? null : String(name)));
  watcher.on('error', (error) => handlers.error(error));
  return { close: () => watcher.close() };
};

const FULL_SCAN_EVERY = 30;
/**
 * Folder times come from a coarse clock: an entry added in the same tick as the listing that
 * missed it leaves the mtime as it was. A folder changed this recently before its last listing is
 * listed again on the next pass.
 */
const MTIME_SLACK_MS = 1000;
/** Session files read at once during the startup scan. */
const STARTUP_READS = 8;
/** A session whose file changed this recently is checked on every reconcile pass. */
const HOT_MS = 5 * 60_000;
/**
 * Each idle session is checked about this often. Only a lost event (an overflowed inotify queue)
 * makes such a check find anything, and each costs a stat (~30 µs here, in code too cold to be
 * optimised): at 60 s, 1,000 idle sessions cost 0.06% CPU, at 120 s 0.03% (bench c).
 */
const COLD_PERIOD_MS = 120_000;
/**
 * The reconcile pass only recovers what the watch missed, so it can be slow: every pass costs
 * ~2 ms even with one session, and at 2 s that alone was 0.1–0.24% idle CPU (measured, bench c).
 */
const RECONCILE_INTERVAL_MS = 5000;

function isDirectory(dir: string): boolean {
  try {
    return fsSync.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

function stampOf(file: string): FileStamp | null {
  try {
    const stats = fsSync.statSync(file, { throwIfNoEntry: false });
    return stats ? stampOfStats(stats) : null;
  } catch {
    return null;
  }
}

/** Nothing more to read: migrated, or another repo's transcript (its cwd is elsewhere). */
function isDone(state: SessionState): boolean {
  return state.closed || state.foreign === true;
}

function sameStamp(a: FileStamp | null, b: FileStamp | null): boolean {
  return a !== null && b !== null && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

interface Tracked {
  readonly file: string;
  readonly reader: SessionReader;
  running: Promise<void> | null;
  again: boolean;
  initial: boolean;
  /** The file as it was when the last read began (a later append makes it differ). */
  stamp: FileStamp | null;
  /** Where it sits in the ring of open sessions; -1 once out of it (closed or gone). */
  ringIndex: number;
  /** Not a regular file (a FIFO, a device, a symlink): logged once, then left alone until an event names it again. */
  notRegular: boolean;
}

export class SessionWatcher {
  private readonly tracked = new Map<string, Tracked>();
  /** Every open session, in no particular order: the cold window moves round it. */
  private readonly ring: Tracked[] = [];
  /** Sessions whose file changed within HOT_MS when last read, or that could not be stamped. */
  private readonly hot = new Set<Tracked>();
  private watcher: { close(): void } | null = null;
  /** The inode of the folder being watched: a folder removed and made again needs a new watch. */
  private watchedIno: number | null = null;
  /** The last watch failure was logged as a warning; repeats go to debug until a watch works. */
  private watchFailing = false;
  private timer: NodeJS.Timeout | null = null;
  private reconciling: Promise<void> | null = null;
  private folderMtimeMs = -1;
  /** Wall clock when the folder was last listed. */
  private listedAtMs = 0;
  /** Our folder is gone: the watch on the nearest folder above it that exists. */
  private ancestor: { readonly dir: string; close(): void } | null = null;
  /** A pass was asked for while one ran (the folder came back mid-pass): run one more. */
  private reconcileAgain = false;
  private passes = 0;
  private coldCursor = 0;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly options: SessionWatcherOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Reads every session file present, then watches. */
  async start(): Promise<void> {
    const { folder } = this.options;
    if (this.options.create !== false) await fs.mkdir(folder, { recursive: true });
    await this.scanFolder(true);
    // Watching before the first reads: an append while they run is not lost (a read under way reads again).
    this.openWatch();
    // A few at a time: each read holds a chunk buffer, and thousands at once would pile them up.
    await mapLimited([...this.tracked.keys()], STARTUP_READS, (file) => this.refresh(file));

    const interval = this.options.reconcileIntervalMs ?? RECONCILE_INTERVAL_MS;
    const tick = () => {
      this.timer = setTimeout(() => {
        void this.reconcile().finally(() => {
          if (!this.closed) tick();
        });
      }, interval);
    };
    tick();
  }

  states(): SessionState[] {
    const states: SessionState[] = [];
    for (const entry of this.tracked.values()) if (!entry.notRegular) states.push(entry.reader.state);
    return states;
  }

  state(file: string): SessionState | null {
    const entry = this.tracked.get(file);
    return entry && !entry.notRegular ? entry.reader.state : null;
  }

  /** Starts the folder watch; on failure the reconcile pass carries on alone and tries again. */
  private openWatch(folderStamp: FileStamp | null = stampOf(this.options.folder)): void {
    const { folder, logger } = this.options;
    const watch = this.options.watchFolder ?? watchWithFsWatch;
    try {
      this.watchedIno = folderStamp?.ino ?? null;
      this.watcher = watch(folder, {
        change: (name) => {
          if (name === null) {
            void this.reconcile();
            return;
          }
          if (name === path.basename(folder)) {
            // The folder itself was removed or moved: this watch hears nothing more. It is watched
            // again once it exists (its inode may even be the same).
            logger.info({ folder }, 'the session folder went away; watching for its return');
            this.dropWatch();
            this.watchForReturn();
            return;
          }
          if (!name.endsWith('.jsonl')) return;
          const file = path.join(folder, name);
          // A closed (archived) session, or another repo's transcript, needs no further work.
          const known = this.tracked.get(file)?.reader.state;
          if (known && isDone(known)) return;
          void this.refresh(file);
        },
        error: (error) => {
          logger.warn({ err: error }, 'the session folder watch failed; the reconcile pass covers it and watches again');
          this.dropWatch();
        },
      });
      if (this.watchFailing) logger.info({ folder }, 'watching the session folder again');
      this.watchFailing = false;
    } catch (error) {
      // ENOSPC: the inotify watch limit; ENOENT: the folder is gone for now.
      (this.watchFailing ? logger.debug : logger.warn).call(
        logger,
        { err: error, folder },
        'cannot watch the session folder; the reconcile pass covers it',
      );
      this.watchFailing = true;
      this.watcher = null;
      if (!folderStamp) this.watchForReturn();
    }
  }

  /**
   * Our folder is gone: watch the nearest folder above it that exists, and on any change there
   * look again — move the watch down as the path comes back, and once the folder is back, watch it
   * and list it. Only for a folder of our own: another agent's folders are the transcript
   * watchers' to find. Costs a few stats per change above, only while the folder is missing.
   */
  private watchForReturn(): void {
    if (this.closed || this.watcher || this.options.create === false) return;
    const { folder } = this.options;
    const stamp = stampOf(folder);
    if (stamp) {
      this.dropAncestor();
      this.openWatch(stamp);
      // Whatever was written before this watch began is found by listing the folder.
      this.folderMtimeMs = -1;
      void this.reconcile();
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

  /** Reads `file` to its end; a call during a read makes that read run once more afterwards. */
  refresh(file: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    let entry = this.tracked.get(file);
    if (!entry) {
      const source = findSource(this.options.sources, file);
      if (!source) return Promise.resolve();
      entry = this.track(file, source, false);
    }
    const tracked = entry;
    if (tracked.running) {
      tracked.again = true;
      return tracked.running;
    }
    tracked.running = (async () => {
      let gone = false;
      do {
        tracked.again = false;
        gone = await this.readOnce(file, tracked);
      } while (tracked.again && !gone && !this.closed);
    })().finally(() => (tracked.running = null));
    return tracked.running;
  }

  /** The slow pass: new or vanished files, and growth that no event announced. */
  reconcile(): Promise<void> {
    if (this.reconciling) {
      this.reconcileAgain = true;
      return this.reconciling;
    }
    this.reconciling = (async () => {
      try {
        const folder = stampOf(this.options.folder);
        if (this.watcher && folder && folder.ino !== this.watchedIno) {
          this.options.logger.info({ folder: this.options.folder }, 'the session folder was made again; watching the new one');
          this.dropWatch();
        }
        if (!this.watcher && !this.closed) {
          if (folder) this.openWatch(folder);
          else this.watchForReturn();
        }
        // Synchronous: a promise stat of the folder cost more than the rest of an idle pass.
        const reads: Promise<void>[] = await this.scanFolder(false, folder);
        const hotSince = this.now() - HOT_MS;
        for (const tracked of this.hot) {
          // Cooled down: from now on the ring's window covers it.
          if (tracked.stamp !== null && tracked.stamp.mtimeMs < hotSince) this.hot.delete(tracked);
          else this.check(tracked, reads);
        }
        const interval = this.options.reconcileIntervalMs ?? RECONCILE_INTERVAL_MS;
        const size = this.ring.length;
        const slice = Math.min(size, Math.ceil((size * interval) / COLD_PERIOD_MS));
        const start = size === 0 ? 0 : this.coldCursor % size;
        for (let step = 0; step < slice; step += 1) {
          const tracked = this.ring[(start + step) % size]!;
          if (!this.hot.has(tracked)) this.check(tracked, reads);
        }
        this.coldCursor = size === 0 ? 0 : (start + slice) % size;
        await Promise.all(reads);
        this.options.onReconcile?.();
      } catch (error) {
        this.options.logger.warn({ err: error }, 'reconcile pass failed');
      }
    })().finally(() => {
      this.reconciling = null;
      if (this.reconcileAgain && !this.closed) {
        this.reconcileAgain = false;
        void this.reconcile();
      }
    });
    return this.reconciling;
  }

  /** One stat; a read only when the file is not as it was before the last read (a read under way reads to the end anyway). */
  private check(tracked: Tracked, reads: Promise<void>[]): void {
    if (!tracked.running && !sameStamp(stampOf(tracked.file), tracked.stamp)) reads.push(this.refresh(tracked.file));
  }

  private track(file: string, source: SessionSource, initial: boolean): Tracked {
    const tracked: Tracked = {
      file,
      reader: source.createReader(file),
      running: null,
      again: false,
      initial,
      stamp: null,
      ringIndex: this.ring.length,
      notRegular: false,
    };
    this.tracked.set(file, tracked);
    this.ring.push(tracked);
    return tracked;
  }

  /** Out of the ring and the hot set: a closed session needs no more checks, a vanished one none at all. */
  private retire(tracked: Tracked): void {
    this.hot.delete(tracked);
    const index = tracked.ringIndex;
    if (index < 0) return;
    tracked.ringIndex = -1;
    const last = this.ring.pop()!;
    if (last !== tracked) {
      this.ring[index] = last;
      last.ringIndex = index;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.dropWatch();
    this.dropAncestor();
    await this.reconciling;
    await Promise.all([...this.tracked.values()].map((entry) => entry.running));
  }

  /** One read to the end; true when the file is gone. */
  private async readOnce(file: string, tracked: Tracked): Promise<boolean> {
    let update: SessionUpdate;
    try {
      update = await tracked.reader.update();
    } catch (error) {
      if (NotRegularFileError.isInstance(error)) {
        // Out of the passes (a stat of it each pass would find it "changed" for ever); an event
        // naming it again (it was replaced by a real file) reads it again.
        if (!tracked.notRegular)
          this.options.logger.warn(
            { file, kind: error.what },
            `ignored ${path.basename(file)}: it is ${error.what}, not a regular file, so not a session`,
          );
        tracked.notRegular = true;
        this.retire(tracked);
        return false;
      }
      // The stamp stays as it was: the reconcile pass sees a difference and tries again.
      this.options.logger.warn({ err: error, file }, 'could not read a session file');
      return false;
    }
    if (tracked.notRegular) {
      // A regular file again (replaced): back in the passes.
      tracked.notRegular = false;
      if (tracked.ringIndex < 0 && !tracked.reader.state.closed) {
        tracked.ringIndex = this.ring.length;
        this.ring.push(tracked);
      }
    }
    // Taken by the reader before it read: an append after it makes the next reconcile see a difference.
    tracked.stamp = update.stamp;
    for (const skip of update.skipped) this.options.logger.warn({ ...skip }, 'skipped a session line');
    if (update.missing) {
      this.tracked.delete(file);
      this.retire(tracked);
    } else if (isDone(tracked.reader.state)) {
      this.retire(tracked);
    } else if (tracked.stamp === null || tracked.stamp.mtimeMs >= this.now() - HOT_MS) {
      this.hot.add(tracked);
    }
    const initial = tracked.initial;
    tracked.initial = false;
    if (update.linesRead > 0 || update.reset !== null || update.missing || update.skipped.length > 0) {
      try {
        this.options.onUpdate(update, { initial });
      } catch (error) {
        this.options.logger.warn({ err: error, file }, 'session update handler failed');
      }
    }
    return update.missing;
  }

  /**
   * Lists the folder when its mtime moved (entries added or removed); new files get a reader.
   * Resolves with the reads it started (none at startup: the caller reads everything then).
   */
  private async scanFolder(initial: boolean, stats: FileStamp | null = stampOf(this.options.folder)): Promise<Promise<void>[]> {
    const { folder } = this.options;
    const reads: Promise<void>[] = [];
    if (!stats) return reads;
    // File times come from a coarse clock: two additions within one tick leave one mtime. A full
    // listing every FULL_SCAN_EVERY passes covers that rare case, should the watch miss it too.
    this.passes += 1;
    const settled = this.listedAtMs - stats.mtimeMs > MTIME_SLACK_MS;
    if (stats.mtimeMs === this.folderMtimeMs && settled && this.passes % FULL_SCAN_EVERY !== 0) return reads;
    this.folderMtimeMs = stats.mtimeMs;
    this.listedAtMs = this.now();
    const names = await fs.readdir(folder);
    const present = new Set<string>();
    for (const name of names) {
      if (!name.endsWith('.jsonl')) continue;
      const file = path.join(folder, name);
      present.add(file);
      if (this.tracked.has(file)) continue;
      const source = findSource(this.options.sources, file);
      if (!source) continue;
      this.track(file, source, initial);
      if (!initial) reads.push(this.refresh(file));
    }
    for (const file of this.tracked.keys()) if (!present.has(file)) reads.push(this.refresh(file));
    return reads;
  }
}
