// Finds this repo's Codex rollouts in `$CODEX_HOME/sessions/YYYY/MM/DD/` and says when one appears
// or grows, while the rollouts of every other repo — tens of thousands on a busy machine — cost
// nothing after their first few KB were read once:
// - each rollout's owner is decided once, from the head of its session_meta line, and cached;
// - fs.watch is set on the sessions folder, its year and month folders (so a new day's folder is
//   seen at midnight), the newest day folder (where new sessions start) and every day folder that
//   holds a rollout of this repo (`codex exec resume` appends to an older day's file). No other
//   day folder is watched or listed again;
// - events for rollouts of other repos are one map lookup; a rollout whose first line is not
//   written yet is decided at its next event.
// A reconcile pass (the daemon's) re-lists only a folder whose mtime moved and makes failed watches again.
import fsSync, { promises as fs } from 'node:fs';
import path from 'node:path';
import { mapLimited } from '../../map-limited.js';
import { isInsideRepo, isRolloutName, readRolloutMeta, type RolloutMetaResult } from './codex-rollout-meta.js';

export interface RolloutTreeLogger {
  debug(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** Watches one folder: `change` gets the entry's name (null: the platform did not say). Throws when it cannot watch. */
export type WatchFolder = (folder: string, handlers: { change(name: string | null): void; error(error: unknown): void }) => { close(): void };

export interface CodexRolloutTreeOptions {
  /** `$CODEX_HOME/sessions`; it may not exist yet. */
  readonly sessionsFolder: string;
  /** Real path of the repo root. */
  readonly root: string;
  readonly logger: RolloutTreeLogger;
  /** A rollout of this repo was found (at start or later) or changed. */
  readonly onRollout: (file: string) => void;
  readonly watchFolder?: WatchFolder;
  readonly readMeta?: (file: string) => Promise<RolloutMetaResult>;
}

const watchWithFsWatch: WatchFolder = (folder, handlers) => {
  const watcher = fsSync.watch(folder, { persistent: true }, (_event, name) => handlers.change(name === null ? null : String(name)));
  watcher.on('error', (error) => handlers.error(error));
  return { close: () => watcher.close() };
};

/** sessions/ (0) → YYYY (1) → MM (2) → DD (3). */
const LEVEL_NAME = [/^\d{4}$/, /^\d{2}$/, /^\d{2}$/];
const DAY_LEVEL = 3;
/** Rollout heads read at once during the first scan. */
const META_READS = 8;

interface Folder {
  readonly path: string;
  readonly level: number;
  watch: { close(): void } | null;
  /** mtime when last listed: a pass re-lists only a folder that changed. */
  listedMtimeMs: number;
}

export class CodexRolloutTree {
  /** Rollout → whether it is this repo's. Undecided files (first line not written yet) are absent. */
  private readonly owners = new Map<string, boolean>();
  private readonly deciding = new Map<string, Promise<boolean | null>>();
  private readonly folders = new Map<string, Folder>();
  private newestDay: string | null = null;
  private closed = false;
  readonly counters = { metaReads: 0, listings: 0 };

  constructor(private readonly options: CodexRolloutTreeOptions) {}

  /** The first scan: resolves once every rollout present is decided and this repo's were reported. */
  async start(): Promise<void> {
    await this.visit(this.options.sessionsFolder, 0);
  }

  /** This repo's rollouts found so far. */
  ownRollouts(): string[] {
    return [...this.owners].filter(([, own]) => own).map(([file]) => file);
  }

  /** Whether `file` was decided to be another repo's (so an event for it is ignored). */
  isForeign(file: string): boolean {
    return this.owners.get(file) === false;
  }

  /** The safety net for lost events and failed watches: re-list folders whose mtime moved. */
  async reconcile(): Promise<void> {
    if (!this.folders.has(this.options.sessionsFolder)) {
      await this.visit(this.options.sessionsFolder, 0);
      return;
    }
    for (const folder of [...this.folders.values()]) {
      if (this.closed) return;
      const mtimeMs = mtimeOf(folder.path);
      if (mtimeMs === null) {
        this.forget(folder);
        continue;
      }
      if (folder.watch === null && this.shouldWatch(folder)) this.watch(folder);
      if (mtimeMs !== folder.listedMtimeMs) await this.list(folder);
    }
  }

  close(): void {
    this.closed = true;
    for (const folder of this.folders.values()) folder.watch?.close();
    this.folders.clear();
  }

  private async visit(folderPath: string, level: number): Promise<void> {
    if (this.closed || this.folders.has(folderPath)) return;
    const folder: Folder = { path: folderPath, level, watch: null, listedMtimeMs: -1 };
    this.folders.set(folderPath, folder);
    if (level === DAY_LEVEL && (this.newestDay === null || folderPath > this.newestDay)) this.newestDay = folderPath;
    if (level < DAY_LEVEL) this.watch(folder); // before listing, so a folder made meanwhile is not missed
    await this.list(folder);
    if (level === DAY_LEVEL && this.shouldWatch(folder)) this.watch(folder);
  }

  private async list(folder: Folder): Promise<void> {
    const mtimeMs = mtimeOf(folder.path);
    let names: string[];
    try {
      names = await fs.readdir(folder.path);
    } catch {
      if (folder.level > 0) this.forget(folder);
      return; // the sessions folder may not exist yet: the next pass looks again
    }
    this.counters.listings += 1;
    folder.listedMtimeMs = mtimeMs ?? -1;
    if (folder.level < DAY_LEVEL) {
      const pattern = LEVEL_NAME[folder.level]!;
      // Oldest first, so the newest day folder is known when its siblings are listed.
      for (const name of names.filter((entry) => pattern.test(entry)).sort()) await this.visit(path.join(folder.path, name), folder.level + 1);
      return;
    }
    const rollouts = names.filter(isRolloutName).map((name) => path.join(folder.path, name));
    await mapLimited(rollouts, META_READS, (file) => this.rolloutChanged(file));
  }

  private async rolloutChanged(file: string): Promise<void> {
    const own = this.owners.get(file) ?? (await this.decide(file));
    if (own !== true || this.closed) return;
    const folder = this.folders.get(path.dirname(file));
    if (folder && folder.watch === null) this.watch(folder);
    this.options.onRollout(file);
  }

  /** Reads the rollout's head once; null: not decidable yet (empty, first line still being written). */
  private decide(file: string): Promise<boolean | null> {
    let pending = this.deciding.get(file);
    if (!pending) {
      this.counters.metaReads += 1;
      pending = (this.options.readMeta ?? readRolloutMeta)(file).then((result) => {
        this.deciding.delete(file);
        if ('meta' in result) {
          const own = isInsideRepo(this.options.root, result.meta.cwd);
          this.owners.set(file, own);
          return own;
        }
        if (result.unreadable === 'ENOENT') return null;
        const decidable = !['empty', 'first line is incomplete', 'EACCES'].includes(result.unreadable);
        if (decidable) this.owners.set(file, false); // never a session of any repo we can know: don't read it again
        this.options.logger.debug({ file, reason: result.unreadable }, decidable ? 'not a Codex session of any repo; ignored from now on' : 'Codex rollout not decidable yet');
        return decidable ? false : null;
      });
      this.deciding.set(file, pending);
    }
    return pending;
  }

  private shouldWatch(folder: Folder): boolean {
    if (folder.level < DAY_LEVEL || folder.path === this.newestDay) return true;
    const prefix = folder.path + path.sep;
    for (const [file, own] of this.owners) if (own && file.startsWith(prefix)) return true;
    return false;
  }

  private watch(folder: Folder): void {
    if (folder.watch !== null || this.closed) return;
    try {
      folder.watch = (this.options.watchFolder ?? watchWithFsWatch)(folder.path, {
        change: (name) => this.changed(folder, name),
        error: (error) => {
          this.options.logger.warn({ folder: folder.path, err: error }, 'Codex sessions watch failed; the reconcile pass makes it again');
          folder.watch?.close();
          folder.watch = null;
        },
      });
    } catch (error) {
      // ENOENT (removed meanwhile) or ENOSPC (inotify limit): the reconcile pass tries again.
      this.options.logger.warn({ folder: folder.path, err: error }, 'cannot watch a Codex sessions folder (yet)');
    }
  }

  private changed(folder: Folder, name: string | null): void {
    if (this.closed) return;
    if (name === null) {
      void this.list(folder).catch((error: unknown) => this.options.logger.warn({ folder: folder.path, err: error }, 'Codex sessions listing failed'));
      return;
    }
    const entry = path.join(folder.path, name);
    if (folder.level < DAY_LEVEL) {
      if (LEVEL_NAME[folder.level]!.test(name) && !this.folders.has(entry)) {
        void this.visit(entry, folder.level + 1).catch((error: unknown) => this.options.logger.warn({ folder: entry, err: error }, 'Codex sessions listing failed'));
      }
      return;
    }
    if (!isRolloutName(name) || this.owners.get(entry) === false) return;
    void this.rolloutChanged(entry).catch((error: unknown) => this.options.logger.warn({ file: entry, err: error }, 'Codex rollout check failed'));
  }

  private forget(folder: Folder): void {
    folder.watch?.close();
    this.folders.delete(folder.path);
    if (this.newestDay === folder.path) this.newestDay = null;
  }
}

function mtimeOf(folder: string): number | null {
  try {
    return fsSync.statSync(folder, { throwIfNoEntry: false })?.mtimeMs ?? null;
  } catch {
    return null;
  }
}
