// The sessions of this repo in opencode's database, watched: one fs.watch on the database's folder
// (its `.db` and `-wal` change with each write), a slow pass that compares their stamps, and on
// either a read of what changed since the last one — the sessions whose `time_updated` moved, then
// each one's messages from the last one read (the one still streaming is read again). Only the
// sessions whose `directory` is this repo or under it are ever read; a subagent's session (one with
// a parent) is its caller's business and is left out; a session whose row is gone (deleted) leaves the
// list at the next read. The database is only ever read (opencode-database.ts).
import path from 'node:path';
import type { Logger } from 'pino';
import { stampOf } from '../../watching/file-stamp.js';
import { watchWithFsWatch } from '../../watching/folder-watch.js';
import type { FolderSessions, FolderSessionsOptions, SessionState, SessionUpdate, SkipNotice } from '../../watching/session-source.js';
import { detailsOf } from '../kit/observations.js';
import { openReadOnly, type ReadOnlyDatabase } from './opencode-database.js';
import {
  emptyOpencodeState,
  foldOpencodeMessage,
  foldOpencodeSession,
  type OpencodeDetails,
  type OpencodeFoldOptions,
} from './opencode-fold.js';
import type { SessionPlace } from './opencode-liveness.js';
import { sessionFile } from './opencode-paths.js';

const RECONCILE_INTERVAL_MS = 5000;

const SESSIONS = `SELECT id, directory, time_created, time_updated, time_archived FROM session
  WHERE parent_id IS NULL AND time_updated >= ? AND (directory = ? OR substr(directory, 1, length(?)) = ?)`;
/** This repo's sessions, ids only: one gone from it was deleted (opencode's `session delete`, or the TUI's). */
const PRESENT = `SELECT id FROM session WHERE parent_id IS NULL AND (directory = ? OR substr(directory, 1, length(?)) = ?)`;
const MESSAGES = 'SELECT id, time_created, data FROM message WHERE session_id = ? AND time_created >= ? ORDER BY time_created, id';

export interface OpencodeSessionsOptions extends FolderSessionsOptions {
  readonly database: string;
  readonly fold: OpencodeFoldOptions;
}

export class OpencodeSessions implements FolderSessions, SessionPlace {
  private readonly sessions = new Map<string, SessionState>();
  /** Each session's `time_updated`: the one of a directory written to last is the one a running opencode there works in. */
  private readonly updated = new Map<string, number>();
  private database: ReadOnlyDatabase | null = null;
  /** The latest `time_updated` read: the next read asks for the sessions changed since. */
  private since = 0;
  /** The database and its WAL as they were before the last read began. */
  private stamps = '';
  private reading: Promise<void> | null = null;
  private again = false;
  private listed: Promise<void> | null = null;
  private watch: { close(): void } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly logger: Logger;

  constructor(private readonly options: OpencodeSessionsOptions) {
    this.logger = options.logger;
  }

  /** The sessions present are read as history (a row costs nothing to list but its read). */
  list(): Promise<void> {
    this.listed ??= this.read(true);
    return this.listed;
  }

  async start(): Promise<void> {
    await this.list();
    const names = new Set([path.basename(this.options.database), `${path.basename(this.options.database)}-wal`]);
    try {
      this.watch = watchWithFsWatch(this.options.folder, {
        change: (name) => {
          if (name === null || names.has(name)) void this.refresh('');
        },
        error: () => {
          this.watch?.close();
          this.watch = null;
        },
      });
    } catch (error) {
      this.logger.warn({ err: error, folder: this.options.folder }, 'could not watch the opencode database; checked every pass instead');
    }
    // What the watch missed (or all, unwatched): a read when the database or its WAL changed.
    const tick = () => {
      this.timer = setTimeout(() => {
        if (this.closed) return;
        void (this.currentStamps() === this.stamps ? Promise.resolve() : this.refresh('')).finally(tick);
      }, this.options.reconcileIntervalMs ?? RECONCILE_INTERVAL_MS);
    };
    tick();
  }

  states(): SessionState[] {
    return [...this.sessions.values()];
  }

  state(file: string): SessionState | null {
    return this.sessions.get(file) ?? null;
  }

  place(file: string): { directory: string; newest: boolean } | null {
    const directory = this.sessions.get(file)?.cwd;
    const at = this.updated.get(file);
    if (!directory || at === undefined) return null;
    for (const [other, state] of this.sessions)
      if (other !== file && state.cwd === directory && (this.updated.get(other) ?? 0) > at) return { directory, newest: false };
    return { directory, newest: true };
  }

  /** Reads what changed in the database (any session's: one read covers them all). */
  refresh(_file: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        await this.read(false);
      } while (this.again && !this.closed);
    })().finally(() => (this.reading = null));
    return this.reading;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.watch?.close();
    await this.reading;
    await this.listed;
    this.database?.close();
    this.database = null;
  }

  private currentStamps(): string {
    const stamp = (file: string) => {
      const found = stampOf(file);
      return found ? `${found.ino}:${found.size}:${found.mtimeMs}` : '-';
    };
    return `${stamp(this.options.database)} ${stamp(`${this.options.database}-wal`)}`;
  }

  private async read(initial: boolean): Promise<void> {
    const stamps = this.currentStamps();
    try {
      this.database ??= openReadOnly(this.options.database);
      const updates = this.readChanged(this.database);
      this.stamps = stamps;
      for (const update of updates) this.options.onUpdate(update, { initial });
    } catch (error) {
      // Tried again once the database changes (opencode making its tables), not every pass: one warning a change.
      this.stamps = stamps;
      this.logger.warn({ err: error, database: this.options.database }, 'could not read the opencode database');
      this.database?.close();
      this.database = null;
    }
  }

  private readChanged(database: ReadOnlyDatabase): SessionUpdate[] {
    const root = this.options.fold.root;
    const under = root.endsWith('/') ? root : `${root}/`;
    const updates: SessionUpdate[] = [];
    for (const row of database.all(SESSIONS, this.since, root, under, under)) {
      const id = String(row.id);
      const file = sessionFile(this.options.database, id);
      const previous = this.sessions.get(file) ?? emptyOpencodeState(file, id, this.options.fold);
      let state = foldOpencodeSession(
        previous,
        { directory: String(row.directory), timeCreated: Number(row.time_created) },
        this.options.fold,
      );
      const skipped: SkipNotice[] = [];
      let linesRead = 0;
      if (!state.otherRepo) {
        for (const message of database.iterate(MESSAGES, id, detailsOf<OpencodeDetails>(state).cursor)) {
          linesRead += 1;
          const folded = foldOpencodeMessage(
            state,
            { id: String(message.id), timeCreated: Number(message.time_created), data: String(message.data) },
            this.options.fold,
          );
          if (typeof folded === 'string') skipped.push({ file, lineNumber: 0, offset: 0, reason: `${String(message.id)}: ${folded}` });
          else state = folded;
        }
      }
      if (row.time_archived !== null && !state.closed) state = { ...state, closed: true, overflowed: false };
      this.since = Math.max(this.since, Number(row.time_updated));
      this.updated.set(file, Number(row.time_updated));
      this.sessions.set(file, state);
      if (previous.startedAt !== null && !changed(previous, state) && skipped.length === 0) continue;
      updates.push(updateOf(previous, state, linesRead, skipped));
    }
    return [...updates, ...this.deleted(database, root, under)];
  }

  /** The sessions listed before whose rows are gone: out of the list, and said so to the daemon as a gone file is. */
  private deleted(database: ReadOnlyDatabase, root: string, under: string): SessionUpdate[] {
    if (this.sessions.size === 0) return [];
    const present = new Set(database.all(PRESENT, root, under, under).map((row) => sessionFile(this.options.database, String(row.id))));
    const gone: SessionUpdate[] = [];
    for (const [file, state] of this.sessions) {
      if (present.has(file)) continue;
      this.sessions.delete(file);
      this.updated.delete(file);
      gone.push({ ...updateOf(state, state, 0, []), missing: true, linesRead: 0 });
    }
    return gone;
  }
}

/** What a person or the monitor would notice: a message, a reading, the model, a compaction, the end. */
function changed(previous: SessionState, state: SessionState): boolean {
  return (
    previous.messageCount !== state.messageCount ||
    previous.latestUsage?.total_tokens !== state.latestUsage?.total_tokens ||
    previous.latestUsage?.completion_tokens !== state.latestUsage?.completion_tokens ||
    previous.model !== state.model ||
    previous.compactions !== state.compactions ||
    previous.closed !== state.closed
  );
}

function updateOf(previous: SessionState, state: SessionState, linesRead: number, skipped: readonly SkipNotice[]): SessionUpdate {
  return {
    state,
    previous,
    reset: null,
    missing: false,
    bytesRead: 0,
    checkBytesRead: 0,
    // At least one: the watcher's news is an update that read something.
    linesRead: Math.max(1, linesRead),
    skipped,
    overflowStarted: !previous.overflowed && state.overflowed,
    usageChanged: previous.latestUsage?.total_tokens !== state.latestUsage?.total_tokens,
    compactionsSeen: (state.compactions ?? 0) - (previous.compactions ?? 0),
    handoffs: [],
    stamp: null,
  };
}
