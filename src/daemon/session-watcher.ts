// Watches `.ai-zen/sessions/` (D1) and keeps one incremental reader per session file.
//
// What was measured and shapes this: chokidar passes on at most one `change` per file per 50 ms
// and drops the last change of a burst, so every event reads to the END of the file (the reader
// only reads appended bytes); when the inotify limit or queue overflows events are lost with no
// error, so a slow reconcile pass stats every open session (the reader skips a file whose size,
// inode and times are unchanged) and re-lists the folder when its mtime moved — the recovery, as
// watchman rescans; and one trailing read ~100 ms after the last event of a burst catches the
// change chokidar dropped without waiting for that pass. No awaitWriteFinish: it would cost 50 ms to 2 s per event. A closed
// (migrated) session needs no further work and drops out of the reconcile pass.
import chokidar, { type ChokidarOptions } from 'chokidar';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { findSource, type SessionReader, type SessionSource, type SessionState, type SessionUpdate } from './session-source.js';

export interface WatcherLogger {
  debug(details: object, message: string): void;
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface SessionWatcherOptions {
  readonly folder: string;
  readonly sources: readonly SessionSource[];
  readonly logger: WatcherLogger;
  /** Default 2000 ms. */
  readonly reconcileIntervalMs?: number;
  /**
   * Every update that read something, found the file gone, or started over. `initial` is true for
   * the first read of the files present at start (history, not news).
   */
  readonly onUpdate: (update: SessionUpdate, info: { readonly initial: boolean }) => void;
  /** After each reconcile pass (the daemon re-checks owners of overflowed sessions then). */
  readonly onReconcile?: () => void;
  /** Default chokidar.watch; a test passes a watcher that drops every event, as an overflowed inotify queue does. */
  readonly watchFolder?: (folder: string, options: ChokidarOptions) => FolderWatcher;
}

/** The part of chokidar's FSWatcher the session watcher uses. */
export interface FolderWatcher {
  // Events: 'add' | 'change' | 'unlink' (file), 'error' (error), 'ready'.
  on(event: string, listener: (argument: never) => void): unknown;
  once(event: 'ready', listener: () => void): unknown;
  close(): Promise<void>;
}

const FULL_SCAN_EVERY = 10;
/**
 * chokidar passes on one change per file per 50 ms and drops the last change of a burst: one
 * more read this long after the last event catches that change without waiting for reconcile.
 */
const TRAILING_READ_MS = 100;

interface Tracked {
  readonly reader: SessionReader;
  running: Promise<void> | null;
  again: boolean;
  initial: boolean;
  trailing?: NodeJS.Timeout;
}

export class SessionWatcher {
  private readonly tracked = new Map<string, Tracked>();
  private watcher: FolderWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reconciling: Promise<void> | null = null;
  private folderMtimeMs = -1;
  private passes = 0;
  private closed = false;

  constructor(private readonly options: SessionWatcherOptions) {}

  /** Reads every session file present, then watches. Resolves once chokidar is ready. */
  async start(): Promise<void> {
    const { folder } = this.options;
    await fs.mkdir(folder, { recursive: true });
    await this.scanFolder(true);
    await Promise.all([...this.tracked.keys()].map((file) => this.refresh(file)));

    const watch = this.options.watchFolder ?? ((path: string, options: ChokidarOptions) => chokidar.watch(path, options));
    const watcher = watch(folder, {
      depth: 0,
      ignoreInitial: true,
      awaitWriteFinish: false,
      persistent: true,
      // Only `*.jsonl` files (a function: chokidar 5 has no globs); the folder itself passes.
      ignored: (file, stats) => file !== folder && stats !== undefined && stats.isFile() && !file.endsWith('.jsonl'),
    });
    this.watcher = watcher;
    watcher.on('add', (file: string) => this.changed(file));
    watcher.on('change', (file: string) => this.changed(file));
    watcher.on('unlink', (file: string) => void this.refresh(file));
    watcher.on('error', (error: unknown) => this.options.logger.warn({ err: error }, 'session folder watch error; the reconcile pass covers it'));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

    const interval = this.options.reconcileIntervalMs ?? 2000;
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
    return [...this.tracked.values()].map((entry) => entry.reader.state);
  }

  state(file: string): SessionState | null {
    return this.tracked.get(file)?.reader.state ?? null;
  }

  /** An event for `file`: read it to the end now, and once more after the burst. */
  private changed(file: string): void {
    void this.refresh(file);
    const tracked = this.tracked.get(file);
    if (!tracked) return;
    if (tracked.trailing) clearTimeout(tracked.trailing);
    tracked.trailing = setTimeout(() => {
      tracked.trailing = undefined;
      void this.refresh(file);
    }, TRAILING_READ_MS);
    tracked.trailing.unref();
  }

  /** Reads `file` to its end; a call during a read makes that read run once more afterwards. */
  refresh(file: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    let entry = this.tracked.get(file);
    if (!entry) {
      const source = findSource(this.options.sources, file);
      if (!source) return Promise.resolve();
      entry = { reader: source.createReader(file), running: null, again: false, initial: false };
      this.tracked.set(file, entry);
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
    this.reconciling ??= (async () => {
      try {
        await this.scanFolder(false);
        const open = [...this.tracked.entries()].filter(([, entry]) => !entry.reader.state.closed);
        for (const [file] of open) {
          if (this.closed) return;
          await this.refresh(file);
        }
        this.options.onReconcile?.();
      } catch (error) {
        this.options.logger.warn({ err: error }, 'reconcile pass failed');
      }
    })().finally(() => (this.reconciling = null));
    return this.reconciling;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const entry of this.tracked.values()) if (entry.trailing) clearTimeout(entry.trailing);
    await this.watcher?.close();
    await this.reconciling;
    await Promise.all([...this.tracked.values()].map((entry) => entry.running));
  }

  /** One read to the end; true when the file is gone. */
  private async readOnce(file: string, tracked: Tracked): Promise<boolean> {
    let update: SessionUpdate;
    try {
      update = await tracked.reader.update();
    } catch (error) {
      this.options.logger.warn({ err: error, file }, 'could not read a session file');
      return false;
    }
    for (const skip of update.skipped) this.options.logger.warn({ ...skip }, 'skipped a session line');
    if (update.missing) this.tracked.delete(file);
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

  /** Lists the folder when its mtime moved (entries added or removed); new files get a reader. */
  private async scanFolder(initial: boolean): Promise<void> {
    const { folder } = this.options;
    const stats = await fs.stat(folder).catch(() => null);
    if (!stats) return;
    // File times come from a coarse clock: two additions within one tick leave one mtime. A full
    // listing every FULL_SCAN_EVERY passes covers that rare case, should chokidar miss it too.
    this.passes += 1;
    if (stats.mtimeMs === this.folderMtimeMs && this.passes % FULL_SCAN_EVERY !== 0) return;
    this.folderMtimeMs = stats.mtimeMs;
    const names = await fs.readdir(folder);
    const present = new Set<string>();
    for (const name of names) {
      if (!name.endsWith('.jsonl')) continue;
      const file = path.join(folder, name);
      present.add(file);
      if (this.tracked.has(file)) continue;
      const source = findSource(this.options.sources, file);
      if (!source) continue;
      this.tracked.set(file, { reader: source.createReader(file), running: null, again: false, initial });
      if (!initial) void this.refresh(file);
    }
    for (const file of this.tracked.keys()) if (!present.has(file)) void this.refresh(file);
  }
}
