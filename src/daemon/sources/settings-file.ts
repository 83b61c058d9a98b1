// One read-change-write of an agent's settings file (Claude Code's settings.local.json, Codex's
// hooks.json) that loses nobody's edit and keeps the file's mode (issue 22 §6 and Low):
// - the mode the file had (a 0600 file with an API key in it stays 0600; a new one is 0600);
// - a lock of ours, so two ai-zen commands take turns;
// - a compare-and-swap against everyone else (an editor, the agent itself): the new content is
//   renamed into place only while the path still names the file read, with the content read; that
//   file is read once more after the rename — an edit written into it meanwhile is merged in and
//   written again while our new file is still as we wrote it.
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { AiZenError } from '../../errors.js';
import { fsyncDirectory, prepareWriteInside, writeTempFile } from '../../fs/safe-write.js';
import { hashRealPath } from '../../lock/lock-names.js';
import { acquireLock, type HeldLock } from '../../lock/os-lock.js';
import type { Env } from '../../paths.js';
import { type Json, parseSettingsObject, SettingsNotJson } from './hook-groups.js';

/** A settings file made by us: only its owner reads it (the agents' settings may hold keys). */
const NEW_FILE_MODE = 0o600;
/** Rounds of compare-and-swap before giving up on a file that keeps changing under us. */
const MAX_ROUNDS = 200;
/** Reads in a row (25 ms apart) of a file that is not JSON before it is the user's to fix. */
const MAX_HALF_WRITTEN = 40;
/** How long after the swap the replaced file is read again (a write begun before the rename lands in it). */
const SETTLE_MS = 30;
/** How long one ai-zen command waits for another to finish its write. */
const LOCK_WAIT_MS = 15_000;

export interface SettingsUpdate {
  /** The folder the file must stay inside (writes never follow a symlink out of it). */
  readonly root: string;
  /** The file, relative to root. */
  readonly name: string;
  /** How the file is named in messages. */
  readonly shown: string;
  readonly env: Env;
  /** The new content from the current one (pure: called again when the file changed meanwhile). */
  readonly change: (before: Json) => Json;
}

interface Snapshot {
  readonly text: string | null;
  readonly ino: number | null;
  readonly mode: number;
  readonly handle: fs.FileHandle | null;
}

/** Applies `change` to the file; returns whether its content changed. */
export async function updateSettingsFile(update: SettingsUpdate): Promise<{ file: string; changed: boolean }> {
  const absolute = await prepareWriteInside(update.root, update.name);
  const lock = await waitForLock(`settings-${hashRealPath(absolute, 24)}`, update.env);
  let changed = false;
  let halfWritten = 0;
  // After a swap that raced an in-place write, the content the other writer put in the file we replaced.
  let theirs: string | null = null;
  try {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const current = await snapshot(absolute);
      try {
        const text = theirs ?? current.text;
        let before: Json;
        try {
          before = text === null ? {} : parseSettingsObject(text, update.shown);
        } catch (error) {
          // Caught halfway through someone's in-place write: read again in a moment. One that stays broken is the user's to fix.
          if (!(error instanceof SettingsNotJson)) throw error;
          halfWritten += 1;
          if (halfWritten === MAX_HALF_WRITTEN) throw new AiZenError('config', error.message);
          theirs = null;
          await new Promise((resolve) => setTimeout(resolve, 25));
          continue;
        }
        halfWritten = 0;
        const after = update.change(before);
        const data = `${JSON.stringify(after, null, 2)}\n`;
        if (theirs === null && JSON.stringify(before) === JSON.stringify(after)) return { file: absolute, changed };
        const dir = path.dirname(absolute);
        const temp = await writeTempFile(dir, absolute, data, current.text === null ? NEW_FILE_MODE : current.mode);
        // Compare, right before the swap: the path still names the file we read, which still says what it said.
        const now = await snapshot(absolute);
        await now.handle?.close();
        if (now.ino !== current.ino || now.text !== current.text) {
          await fs.rm(temp, { force: true });
          theirs = null;
          continue;
        }
        await fs.rename(temp, absolute).catch(async (error: unknown) => {
          await fs.rm(temp, { force: true });
          throw error;
        });
        await fsyncDirectory(dir);
        changed = true;
        theirs = null;
        // A writer that opened the file just before the swap writes into the one we replaced: read it once more,
        // and while nobody has touched ours yet, go again from what that writer meant.
        if (current.handle) {
          await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
          const late = await readAll(current.handle);
          if (late !== current.text) {
            const ours = await fs.readFile(absolute, 'utf8').catch(() => null);
            // Nobody touched ours: go again from what the late writer meant. Someone did (they read ours after
            // the swap): what the late writer changed, key by key, goes onto what ours says now.
            theirs = ours === data ? late : mergeLate(current.text, late, ours);
            if (theirs !== null) continue;
          }
        }
        return { file: absolute, changed: true };
      } finally {
        await current.handle?.close().catch(() => {});
      }
    }
    throw new AiZenError('config', `${update.shown} kept changing while ai-zen wrote it; nothing more was changed, run the command again`);
  } finally {
    await lock.release();
  }
}

/** `now` with the top-level keys `late` changed from `base` changed the same way; null when one is not JSON. */
function mergeLate(base: string | null, late: string, now: string | null): string | null {
  try {
    const from = base === null ? {} : (JSON.parse(base) as Json);
    const to = JSON.parse(late) as Json;
    const merged = { ...(JSON.parse(now ?? '{}') as Json) };
    for (const key of new Set([...Object.keys(from), ...Object.keys(to)])) {
      if (JSON.stringify(from[key]) === JSON.stringify(to[key])) continue;
      if (key in to) merged[key] = to[key];
      else delete merged[key];
    }
    return JSON.stringify(merged);
  } catch {
    return null;
  }
}

async function snapshot(file: string): Promise<Snapshot> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { text: null, ino: null, mode: NEW_FILE_MODE, handle: null };
    throw error;
  }
  const stat = await handle.stat();
  return { text: await readAll(handle), ino: stat.ino, mode: stat.mode & 0o777, handle };
}

async function readAll(handle: fs.FileHandle): Promise<string> {
  const chunks: Buffer[] = [];
  let position = 0;
  for (;;) {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function waitForLock(name: string, env: Env): Promise<HeldLock> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const lock = await acquireLock(name, { env, holder: JSON.stringify({ kind: 'settings', pid: process.pid }) });
    if (lock) return lock;
    if (Date.now() > deadline) throw new AiZenError('config', 'another ai-zen command is writing the same settings file; try again');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
