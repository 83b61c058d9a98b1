// Where this repo's Codex rollouts are, among everyone's: `$CODEX_HOME/sessions/YYYY/MM/DD/` mixes
// the sessions of every repo on the machine — tens of thousands of files — so:
// - each rollout's owner is decided once (kit/owners.ts), from the head of its session_meta line (a
//   few KB of a line of 20 KB and more); a rollout whose first line is not written yet is decided
//   at its next event;
// - the folders watched are the newest day (where new sessions start) and every day that holds a
//   rollout of this repo (`codex exec resume` appends to an older day's file); other days are never
//   watched, and listed again only when their mtime moved;
// - the parents watched for new folders are the sessions folder, the newest year and the newest
//   month: a new day's folder at midnight (a new month's, a new year's) moves one of them.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { belongsToRepo } from '../../../probe/innermost-repo.js';
import type { TranscriptFolders } from '../../watching/session-source.js';
import { Owners, subfolders } from '../kit/owners.js';
import { isRolloutName, readRolloutMeta, type RolloutMetaResult } from './codex-rollout-meta.js';

const YEAR = /^\d{4}$/;
const MONTH_OR_DAY = /^\d{2}$/;
/** Reasons a rollout cannot be decided yet (Codex is still writing its first line). */
const NOT_YET = new Set(['empty', 'first line is incomplete', 'ENOENT', 'EACCES']);

/** Which rollouts are this repo's: by the cwd of their session_meta; a file that is no session is nobody's. */
export function codexOwnership(root: string, readMeta: (file: string) => Promise<RolloutMetaResult> = readRolloutMeta): Owners {
  return new Owners(async (file) => {
    const result = await readMeta(file);
    if ('meta' in result) return belongsToRepo(root, result.meta.cwd);
    return NOT_YET.has(result.unreadable) ? null : false;
  });
}

export interface CodexRolloutFolders extends TranscriptFolders {
  readonly counters: { readonly listings: number };
}

export function codexRolloutFolders(sessionsFolder: string, ownership: Owners): CodexRolloutFolders {
  /** Day folder → its mtime when last listed (a day is listed again only when it moved). */
  const listedDays = new Map<string, number>();
  const counters = { listings: 0 };
  const listed = (folders: readonly string[], pattern: RegExp): Promise<string[][]> => {
    counters.listings += folders.length;
    return Promise.all(folders.map((folder) => subfolders(folder, pattern)));
  };

  const listDay = async (day: string): Promise<void> => {
    const mtimeMs = (await fs.stat(day).catch(() => null))?.mtimeMs;
    if (mtimeMs === undefined || listedDays.get(day) === mtimeMs) return;
    const names = await fs.readdir(day).catch(() => null);
    if (names === null) return;
    counters.listings += 1;
    listedDays.set(day, mtimeMs);
    await ownership.decideAll(names.filter(isRolloutName).map((name) => path.join(day, name)));
  };

  return {
    create: false,
    counters,
    async list() {
      const years = (await listed([sessionsFolder], YEAR)).flat();
      const months = (await listed(years, MONTH_OR_DAY)).flat();
      const days = (await listed(months, MONTH_OR_DAY)).flat();
      for (const day of days) await listDay(day);
      const ownDays = ownership.owned().map((file) => path.dirname(file));
      const folders = [...new Set([...ownDays, ...days.slice(-1)])].sort();
      return { folders, parents: [sessionsFolder, ...years.slice(-1), ...months.slice(-1)] };
    },
  };
}
