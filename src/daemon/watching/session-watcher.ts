// Watches one folder of session files (`.ai-zen/sessions/`, D1; another agent's transcript folders)
// and keeps one incremental reader per session file.
//
// ONE fs.watch on the folder (folder-watch.ts, which also waits for the folder when it is removed):
// its events name the file that changed, and each event reads that file to its END (the reader only
// reads appended bytes), so events merged or dropped under load lose nothing as long as one comes.
// What chokidar would add over fs.watch for one flat folder — a rescan when events are lost — is the
// reconcile pass below: when the inotify watch limit or its queue overflows, events are lost with no
// error, so a slow pass re-checks the open sessions (check-schedule.ts: the hot ones every pass, the
// idle ones in turn) and re-lists the folder when its mtime moved, as watchman rescans. The pass
// compares one synchronous stat per file with the stamp taken before the last read, and reads only
// on a difference. A closed (migrated) session needs no further work: it drops out of the pass and
// its events are ignored. A file being written to stays open between reads (kept-open-files.ts),
// and is read through that descriptor only on an event that says its content changed: any other
// event, a pass that finds the path changed, or a file gone closes it and reads the path again.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { mapLimited } from '../../map-limited.js';
import { CheckSchedule } from './check-schedule.js';
import { MTIME_SLACK_MS, sameStamp, stampOf } from './file-stamp.js';
import { type EntryChange, FolderWatch, type WatchFolder } from './folder-watch.js';
import { type FileStamp, NotRegularFileError } from './incremental-reader.js';
import { KeptOpenFiles } from './kept-open-files.js';
import {
  findSource,
  type SessionReader,
  type SessionSource,
  type SessionState,
  type SessionUpdate,
  TRANSCRIPT_SUFFIX,
} from './session-source.js';

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

const FULL_SCAN_EVERY = 30;
/** Session files read at once during the startup scan. */
const STARTUP_READS = 8;
/**
 * The reconcile pass only recovers what the watch missed, so it can be slow: every pass costs
 * ~2 ms even with one session, and at 2 s that alone was 0.1–0.24% idle CPU (measured, bench c).
 */
const RECONCILE_INTERVAL_MS = 5000;

/** Nothing more to read: migrated, or another repo's transcript (its cwd is elsewhere). */
function isDone(state: SessionState): boolean {
  return state.closed || state.otherRepo === true;
}

interface Tracked {
  readonly file: string;
  readonly reader: SessionReader;
  running: Promise<void> | null;
  again: boolean;
  initial: boolean;
  /** The file as it was when the last read began (a later append makes it differ). */
  stamp: FileStamp | null;
  /** Where it sits in the check schedule's ring of open sessions; -1 once out of it (closed or gone). */
  ringIndex: number;
  /** Not a regular file (a FIFO, a device, a symlink): logged once, then left alone until an event names it again. */
  notRegular: boolean;
  /** Read at least once: a file listed and not read yet has no state to show (list() runs before the first reads). */
  read: boolean;
}

export class SessionWatcher {
  private readonly tracked = new Map<string, Tracked>();
  private readonly schedule: CheckSchedule<Tracked>;
  private readonly keptOpen: KeptOpenFiles<Tracked>;
  private readonly folderWatch: FolderWatch;
  private timer: NodeJS.Timeout | null = null;
  private reconciling: Promise<void> | null = null;
  private listing: Promise<void> | null = null;
  private folderMtimeMs = -1;
  /** Wall clock when the folder was last listed. */
  private listedAtMs = 0;
  /** A pass was asked for while one ran (the folder came back mid-pass): run one more. */
  private reconcileAgain = false;
  private passes = 0;
  private closed = false;
  private readonly now: () => number;
  /**
   * An entry's path (the key of `tracked`) is this and its name, as path.join would make it — the
   * folder normalised once, not path.join's work on every event.
   */
  private readonly entryPrefix: string;
  /** The endings of the sources' transcript names: every other entry of the folder is passed over unread. */
  private readonly suffixes: readonly string[];

  constructor(private readonly options: SessionWatcherOptions) {
    this.entryPrefix = path.join(options.folder, path.sep);
    this.suffixes = [...new Set(options.sources.map((source) => source.transcriptSuffix ?? TRANSCRIPT_SUFFIX))];
    this.now = options.now ?? Date.now;
    this.schedule = new CheckSchedule(this.now);
    this.keptOpen = new KeptOpenFiles(this.now);
    this.folderWatch = new FolderWatch({
      folder: options.folder,
      logger: options.logger,
      ...(options.watchFolder ? { watchFolder: options.watchFolder } : {}),
      awaitReturn: options.create !== false,
      onEntry: (name, how) => {
        if (!this.isTranscriptName(name)) return;
        const file = this.entryPrefix + name;
        // A closed (archived) session, or another repo's transcript, needs no further work.
        const known = this.tracked.get(file)?.reader.state;
        if (known && isDone(known)) return;
        void this.readToEnd(file, how);
      },
      onUnknownChange: () => void this.reconcile(),
      onReturn: () => {
        // Whatever was written before the new watch began is found by listing the folder.
        this.folderMtimeMs = -1;
        void this.reconcile();
      },
    });
  }

  private isTranscriptName(name: string): boolean {
    return this.suffixes.some((suffix) => name.endsWith(suffix));
  }

  /**
   * Lists the session files present, without reading one: they are history. The daemon lists before
   * it answers on its socket, so a session begun once it answers is news (its first lines too).
   */
  list(): Promise<void> {
    this.listing ??= (async () => {
      if (this.options.create !== false) await fs.mkdir(this.options.folder, { recursive: true });
      await this.scanFolder(true);
    })();
    return this.listing;
  }

  /** Reads every session file listed (list() first, if the caller did not), then watches. */
  async start(): Promise<void> {
    await this.list();
    const history = [...this.tracked.keys()];
    // Watching before the first reads: an append while they run is not lost (a read under way reads again).
    this.folderWatch.open();
    // A file made between the listing and the watch is heard by neither: the folder is listed once more.
    const made = await this.scanFolder(false);
    // A few at a time: each read holds a chunk buffer, and thousands at once would pile them up.
    await Promise.all([mapLimited(history, STARTUP_READS, (file) => this.refresh(file)), ...made]);

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
    for (const entry of this.tracked.values()) if (entry.read && !entry.notRegular) states.push(entry.reader.state);
    return states;
  }

  state(file: string): SessionState | null {
    const entry = this.tracked.get(file);
    return entry?.read && !entry.notRegular ? entry.reader.state : null;
  }

  /** Reads the file `file` names now to its end; a call during a read makes that read run once more afterwards. */
  refresh(file: string): Promise<void> {
    return this.readToEnd(file, 'rename');
  }

  /**
   * `how` is 'change' only when the path is known to name the same file: the file kept open is read
   * then. Any other request closes it first (during a read too), so every read this watcher makes
   * may tell the reader that the file it still has open is the path's.
   */
  private readToEnd(file: string, how: EntryChange): Promise<void> {
    if (this.closed) return Promise.resolve();
    const known = this.tracked.get(file);
    if (known && how !== 'change') this.keptOpen.release(known);
    let entry = known;
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
        // Synchronous: a promise stat of the folder cost more than the rest of an idle pass.
        const folder = stampOf(this.options.folder);
        this.folderWatch.ensure(folder);
        const reads: Promise<void>[] = await this.scanFolder(false, folder);
        this.schedule.due(this.options.reconcileIntervalMs ?? RECONCILE_INTERVAL_MS, (tracked) => this.check(tracked, reads));
        this.keptOpen.closeQuiet();
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
      ringIndex: -1,
      notRegular: false,
      read: false,
    };
    this.tracked.set(file, tracked);
    this.schedule.add(tracked);
    return tracked;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.folderWatch.close();
    await this.reconciling;
    await Promise.all([...this.tracked.values()].map((entry) => entry.running));
    this.keptOpen.closeAll();
  }

  /** One read to the end; true when the file is gone. */
  private async readOnce(file: string, tracked: Tracked): Promise<boolean> {
    let update: SessionUpdate;
    try {
      // A file still kept open is the path's (readToEnd closes it whenever that may not hold).
      update = await tracked.reader.update({ sameFile: true });
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
        this.schedule.retire(tracked);
        this.keptOpen.release(tracked);
        return false;
      }
      // The stamp stays as it was: the reconcile pass sees a difference and tries again.
      this.options.logger.warn({ err: error, file }, 'could not read a session file');
      return false;
    }
    if (tracked.notRegular) {
      // A regular file again (replaced): back in the passes.
      tracked.notRegular = false;
      if (!tracked.reader.state.closed) this.schedule.add(tracked);
    }
    // Taken by the reader before it read: an append after it makes the next reconcile see a difference.
    tracked.stamp = update.stamp;
    tracked.read = true;
    const initial = tracked.initial;
    tracked.initial = false;
    if (update.missing) {
      this.tracked.delete(file);
      this.schedule.retire(tracked);
      this.keptOpen.release(tracked);
    }
    // The news first (an overflow's event goes out from here); the log and the schedule after it.
    if (update.linesRead > 0 || update.reset !== null || update.missing || update.skipped.length > 0) {
      try {
        this.options.onUpdate(update, { initial });
      } catch (error) {
        this.options.logger.warn({ err: error, file }, 'session update handler failed');
      }
    }
    for (const skip of update.skipped) this.options.logger.warn({ ...skip }, 'skipped a session line');
    if (update.missing) return true;
    // After the news: the stat a read through the kept descriptor did not take before it.
    if (update.stampLater) tracked.stamp = tracked.reader.stampNow();
    if (isDone(tracked.reader.state)) {
      this.schedule.retire(tracked);
      this.keptOpen.release(tracked);
    } else {
      this.schedule.touched(tracked);
      this.keptOpen.read(tracked);
    }
    return false;
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
    // A folder changed this recently before its last listing is listed again (MTIME_SLACK_MS).
    const settled = this.listedAtMs - stats.mtimeMs > MTIME_SLACK_MS;
    if (stats.mtimeMs === this.folderMtimeMs && settled && this.passes % FULL_SCAN_EVERY !== 0) return reads;
    this.folderMtimeMs = stats.mtimeMs;
    this.listedAtMs = this.now();
    const names = await fs.readdir(folder);
    const present = new Set<string>();
    for (const name of names) {
      if (!this.isTranscriptName(name)) continue;
      const file = this.entryPrefix + name;
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
