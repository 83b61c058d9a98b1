// Every source's folders, watched: one SessionWatcher (fs.watch + incremental readers + reconcile
// pass) per transcript folder, exactly as for ai-zen's own sessions, and a light watch on the
// folders' parents so a folder that appears later (Claude Code's slug folder for a subfolder of
// the repo, Codex's folder for a new day) is picked up. The parents are only listed — never a
// transcript of another repo — and only when they changed (their fs.watch, or an mtime that moved
// since the last pass). A parent's listing and its watch or stamp are not one step: a folder made
// between them would be heard by neither, so a new watch is followed by one more listing, and a
// parent changed less than a second before its stamp (a coarse clock can hide a later change) is
// listed again on the next pass.
import { MTIME_SLACK_MS, stampOf } from './file-stamp.js';
import { watchWithFsWatch } from './folder-watch.js';
import type { FileStamp } from './incremental-reader.js';
import type { FolderSessions, SessionState, SessionUpdate, WatchedSource } from './session-source.js';
import { SessionWatcher, type SessionWatcherOptions } from './session-watcher.js';

/** What the rest of the daemon reads: every session of every source. */
export interface WatchedSessions {
  states(): SessionState[];
  state(file: string): SessionState | null;
  refresh(file: string): Promise<void>;
}

export interface TranscriptWatchersOptions
  extends Pick<SessionWatcherOptions, 'logger' | 'reconcileIntervalMs' | 'onUpdate' | 'onReconcile' | 'watchFolder' | 'now'> {
  readonly sources: readonly WatchedSource[];
}

interface ParentWatch {
  stamp: FileStamp | null;
  /** Changed within MTIME_SLACK_MS of its stamp: a change just after it may not move its mtime. */
  unsettled: boolean;
  watch: { close(): void } | null;
}

const RECONCILE_INTERVAL_MS = 5000;

interface SourceWatch {
  readonly source: WatchedSource;
  readonly watchers: Map<string, FolderSessions>;
  parents: Map<string, ParentWatch>;
  listing: Promise<void> | null;
  again: boolean;
}

export class TranscriptWatchers implements WatchedSessions {
  private readonly watches: SourceWatch[];
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private listing: Promise<void> | null = null;
  /** Before start(), a new folder's watcher only lists its files; start() reads them. */
  private started = false;

  constructor(private readonly options: TranscriptWatchersOptions) {
    this.watches = options.sources.map((source) => ({ source, watchers: new Map(), parents: new Map(), listing: null, again: false }));
  }

  /**
   * Lists the fixed folders' session files (ai-zen's own), reading none (session-watcher.ts list()):
   * what is there now is history, what appears from here on is news. Another agent's sessions are
   * listed by start(); their crossings are judged by when the session began (foreign-sessions.ts).
   */
  list(): Promise<void> {
    this.listing ??= Promise.all(this.watches.filter(isFixed).map((watch) => this.relist(watch, true))).then(() => undefined);
    return this.listing;
  }

  /** Reads what list() found (listing first, if the caller did not), lists every other folder, then watches. */
  async start(): Promise<void> {
    await this.list();
    this.started = true;
    await Promise.all(
      this.watches.map((watch) =>
        isFixed(watch) ? Promise.all([...watch.watchers.values()].map((watcher) => watcher.start())) : this.relist(watch, true),
      ),
    );
    const interval = this.options.reconcileIntervalMs ?? RECONCILE_INTERVAL_MS;
    const tick = () => {
      this.timer = setTimeout(() => {
        for (const watch of this.watches) if (this.parentsMoved(watch)) void this.relist(watch, false);
        if (!this.closed) tick();
      }, interval);
    };
    tick();
  }

  states(): SessionState[] {
    return this.watches.flatMap((watch) => [...watch.watchers.values()].flatMap((watcher) => watcher.states()));
  }

  state(file: string): SessionState | null {
    for (const watch of this.watches) {
      for (const watcher of watch.watchers.values()) {
        const state = watcher.state(file);
        if (state) return state;
      }
    }
    return null;
  }

  /** Reads `file` to its end, if a watched folder holds it (the Stop hook asks before it judges). */
  async refresh(file: string): Promise<void> {
    const known = this.refreshKnown(file);
    if (known) return known;
    // A folder that appeared since the last listing (a session started in a new subfolder).
    await Promise.all(this.watches.map((watch) => this.relist(watch, false)));
    await this.refreshKnown(file);
  }

  private refreshKnown(file: string): Promise<void> | null {
    for (const watch of this.watches) {
      for (const [folder, watcher] of watch.watchers) {
        if (watcher.state(file) || isDirectChild(folder, file)) return watcher.refresh(file);
      }
    }
    return null;
  }

  /** Makes the folder list of a source current: a watcher for each new folder. */
  relist(watch: SourceWatch, initial: boolean): Promise<void> {
    if (watch.listing) {
      watch.again = true;
      return watch.listing;
    }
    watch.listing = (async () => {
      do {
        watch.again = false;
        await this.listOnce(watch, initial);
      } while (watch.again && !this.closed);
    })()
      .catch((error: unknown) => this.options.logger.warn({ err: error, source: watch.source.id }, 'could not list the transcript folders'))
      .finally(() => (watch.listing = null));
    return watch.listing;
  }

  private async listOnce(watch: SourceWatch, initial: boolean): Promise<void> {
    const { folders, parents } = await watch.source.folders.list();
    if (this.closed) return;
    this.watchParents(watch, parents);
    const started: Promise<void>[] = [];
    for (const folder of folders) {
      if (watch.watchers.has(folder)) continue;
      const shared = {
        folder,
        logger: this.options.logger,
        ...(this.options.reconcileIntervalMs ? { reconcileIntervalMs: this.options.reconcileIntervalMs } : {}),
        // A folder that appears while the daemon runs holds news, not history.
        onUpdate: (update: SessionUpdate, info: { readonly initial: boolean }) =>
          this.options.onUpdate(update, { initial: initial && info.initial }),
      };
      const watcher: FolderSessions = watch.source.watchFolder
        ? watch.source.watchFolder(shared)
        : new SessionWatcher({
            ...shared,
            sources: [watch.source],
            create: watch.source.folders.create,
            ...(this.options.watchFolder ? { watchFolder: this.options.watchFolder } : {}),
            ...(this.options.onReconcile ? { onReconcile: this.options.onReconcile } : {}),
          });
      watch.watchers.set(folder, watcher);
      if (!initial) this.options.logger.info({ source: watch.source.id, folder }, 'watching a new transcript folder');
      started.push(this.started ? watcher.start() : watcher.list());
    }
    await Promise.all(started);
  }

  /** One shallow watch per parent; a parent that cannot be watched (missing) is stat-ed each pass instead. */
  private watchParents(watch: SourceWatch, parents: readonly string[]): void {
    const next = new Map<string, ParentWatch>();
    const now = (this.options.now ?? Date.now)();
    const watchFolder = this.options.watchFolder ?? watchWithFsWatch;
    for (const parent of parents) {
      const known = watch.parents.get(parent);
      const stamp = stampOf(parent);
      let handle = known?.watch ?? null;
      if (!handle && stamp) {
        try {
          const made: { close(): void } = watchFolder(parent, {
            change: () => void this.relist(watch, false),
            error: () => {
              made.close();
              const entry = watch.parents.get(parent);
              if (entry?.watch === made) entry.watch = null;
            },
          });
          handle = made;
          // What was made between the listing and this watch is heard by neither: list once more.
          watch.again = true;
        } catch {
          handle = null;
        }
      }
      next.set(parent, { stamp, unsettled: stamp !== null && now - stamp.mtimeMs < MTIME_SLACK_MS, watch: handle });
    }
    for (const [parent, entry] of watch.parents) if (!next.has(parent)) entry.watch?.close();
    watch.parents = next;
  }

  private parentsMoved(watch: SourceWatch): boolean {
    for (const [parent, entry] of watch.parents) {
      if (entry.unsettled) return true;
      const stamp = stampOf(parent);
      if (stamp?.mtimeMs !== entry.stamp?.mtimeMs || stamp?.ino !== entry.stamp?.ino) return true;
    }
    return false;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const watch of this.watches) for (const entry of watch.parents.values()) entry.watch?.close();
    await Promise.all(this.watches.map((watch) => watch.listing));
    await Promise.all(this.watches.flatMap((watch) => [...watch.watchers.values()].map((watcher) => watcher.close())));
  }
}

function isFixed(watch: SourceWatch): boolean {
  return watch.source.folders.fixed === true;
}

function isDirectChild(folder: string, file: string): boolean {
  const cut = file.lastIndexOf('/');
  return cut > 0 && file.slice(0, cut) === folder;
}
