// Where this repo's Codex rollouts are, among everyone's: `$CODEX_HOME/sessions/YYYY/MM/DD/` mixes
// the sessions of every repo on the machine — tens of thousands of files — so:
// - each rollout's owner is decided once, from the head of its session_meta line (a few KB of a
//   line of 20 KB and more), and cached; a rollout whose first line is not written yet is decided
//   at its next event;
// - the folders watched are the newest day (where new sessions start) and every day that holds a
//   rollout of this repo (`codex exec resume` appends to an older day's file); other days are never
//   watched, and listed again only when their mtime moved;
// - the parents watched for new folders are the sessions folder, the newest year and the newest
//   month: a new day's folder at midnight (a new month's, a new year's) moves one of them.
import fsSync, { promises as fs } from 'node:fs';
import path from 'node:path';
import { mapLimited } from '../../../map-limited.js';
import type { TranscriptFolders } from '../../watching/session-source.js';
import { isInsideRepo, isRolloutName, readRolloutMeta, type RolloutMetaResult } from './codex-rollout-meta.js';

/** Rollout heads read at once while listing. */
const HEAD_READS = 8;
const YEAR = /^\d{4}$/;
const MONTH_OR_DAY = /^\d{2}$/;
/** Reasons a rollout cannot be decided yet (Codex is still writing its first line). */
const NOT_YET = new Set(['empty', 'first line is incomplete', 'ENOENT', 'EACCES']);

/** Which rollouts are this repo's: decided once per file, from its head. */
export class CodexOwnership {
  private readonly owners = new Map<string, boolean>();
  private readonly deciding = new Map<string, Promise<boolean | null>>();
  readonly counters = { headReads: 0 };

  constructor(
    private readonly root: string,
    private readonly readMeta: (file: string) => Promise<RolloutMetaResult> = readRolloutMeta,
  ) {}

  /** true: this repo's; false: another repo's (or no session at all); undefined: not decided yet. */
  known(file: string): boolean | undefined {
    return this.owners.get(file);
  }

  /** Decides from the file's head; null when it cannot be decided yet. Concurrent asks share one read. */
  decide(file: string): Promise<boolean | null> {
    const known = this.owners.get(file);
    if (known !== undefined) return Promise.resolve(known);
    let pending = this.deciding.get(file);
    if (!pending) {
      this.counters.headReads += 1;
      // A read that fails is this file's failure, never the listing's.
      const read = this.readMeta(file).catch((error: unknown): RolloutMetaResult => ({ unreadable: String(error) }));
      pending = read.then((result) => {
        this.deciding.delete(file);
        if ('meta' in result) {
          const own = isInsideRepo(this.root, result.meta.cwd);
          this.owners.set(file, own);
          return own;
        }
        if (NOT_YET.has(result.unreadable)) return null;
        this.owners.set(file, false); // not a session of any repo: never read again
        return false;
      });
      this.deciding.set(file, pending);
    }
    return pending;
  }

  /** Folders that hold at least one rollout of this repo. */
  ownFolders(): Set<string> {
    const folders = new Set<string>();
    for (const [file, own] of this.owners) if (own) folders.add(path.dirname(file));
    return folders;
  }
}

export interface CodexRolloutFolders extends TranscriptFolders {
  readonly counters: { readonly listings: number };
}

export function codexRolloutFolders(sessionsFolder: string, ownership: CodexOwnership): CodexRolloutFolders {
  /** Day folder → its mtime when last listed (a day is listed again only when it moved). */
  const listedDays = new Map<string, number>();
  const counters = { listings: 0 };

  const subfolders = async (folder: string, pattern: RegExp): Promise<string[]> => {
    try {
      const entries = await fs.readdir(folder, { withFileTypes: true });
      counters.listings += 1;
      return entries
        .filter((entry) => entry.isDirectory() && pattern.test(entry.name))
        .map((entry) => entry.name)
        .sort()
        .map((name) => path.join(folder, name));
    } catch {
      return [];
    }
  };

  const listDay = async (day: string): Promise<void> => {
    const mtimeMs = mtimeOf(day);
    if (mtimeMs === null || listedDays.get(day) === mtimeMs) return;
    let names: string[];
    try {
      names = await fs.readdir(day);
    } catch {
      return;
    }
    counters.listings += 1;
    listedDays.set(day, mtimeMs);
    const unknown = names
      .filter(isRolloutName)
      .map((name) => path.join(day, name))
      .filter((file) => ownership.known(file) === undefined);
    await mapLimited(unknown, HEAD_READS, (file) => ownership.decide(file));
  };

  return {
    create: false,
    counters,
    async list() {
      const years = await subfolders(sessionsFolder, YEAR);
      const months: string[] = [];
      for (const year of years) months.push(...(await subfolders(year, MONTH_OR_DAY)));
      const days: string[] = [];
      for (const month of months) days.push(...(await subfolders(month, MONTH_OR_DAY)));
      for (const day of days) await listDay(day);
      const newestDay = days.at(-1);
      const folders = [...new Set([...ownership.ownFolders(), ...(newestDay ? [newestDay] : [])])].sort();
      const parents = [sessionsFolder, ...(years.length > 0 ? [years.at(-1)!] : []), ...(months.length > 0 ? [months.at(-1)!] : [])];
      return { folders, parents };
    },
  };
}

function mtimeOf(folder: string): number | null {
  try {
    return fsSync.statSync(folder, { throwIfNoEntry: false })?.mtimeMs ?? null;
  } catch {
    return null;
  }
}
