// One read-change-write of an agent's settings file (Claude Code's settings.local.json, Codex's
// hooks.json) that loses nobody's edit and keeps the file's mode (issue 22 §6 and Low):
// - the mode the file had (a 0600 file with an API key in it stays 0600; a new one is 0600);
// - a lock of ours, so two ai-zen commands take turns;
// - a compare-and-swap against everyone else (an editor, the agent itself): the new content is
//   renamed into place only while the path still names the file read, with the content read; that
//   file is read again after the rename until it holds still — an edit written into it meanwhile is
//   carried, key by key, onto the file as it is then, and written again (what remains: below).
import { type BigIntStats, constants, promises as fs } from 'node:fs';
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
/** How often the replaced file is read again after the swap (a write begun before the rename lands in it). */
const SETTLE_MS = 30;
/** Reads in a row that find the replaced file unchanged before it counts as left alone. */
const QUIET_READS = 4;
/** How long a write into the replaced file that has begun (it changed, and is not whole yet) is waited for. */
const LATE_WAIT_MS = 2_000;
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
  /** inode, size, modification and change times after the read: what the last check before the swap compares. */
  readonly stamp: string | null;
  readonly mode: number;
  readonly handle: fs.FileHandle | null;
}

/** Applies `change` to the file; returns whether its content changed. */
export async function updateSettingsFile(update: SettingsUpdate): Promise<{ file: string; changed: boolean }> {
  const absolute = await prepareWriteInside(update.root, update.name);
  const lock = await waitForLock(`settings-${hashRealPath(absolute, 24)}`, update.env);
  let changed = false;
  let halfWritten = 0;
  // Edits another writer put into a file we had just replaced: carried onto whatever the file says
  // next, round after round, until a swap that includes them holds.
  let pending: readonly LateEdit[] = [];
  try {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const current = await snapshot(absolute);
      try {
        let read: Json;
        try {
          read = current.text === null ? {} : parseSettingsObject(current.text, update.shown);
        } catch (error) {
          // Caught halfway through someone's in-place write: read again in a moment. One that stays broken is the user's to fix.
          if (!(error instanceof SettingsNotJson)) throw error;
          halfWritten += 1;
          if (halfWritten === MAX_HALF_WRITTEN) throw new AiZenError('config', error.message);
          await new Promise((resolve) => setTimeout(resolve, 25));
          continue;
        }
        halfWritten = 0;
        const before = withLateEdits(read, pending);
        const after = update.change(before);
        const data = `${JSON.stringify(after, null, 2)}\n`;
        if (JSON.stringify(read) === JSON.stringify(after)) return { file: absolute, changed };
        const dir = path.dirname(absolute);
        const temp = await writeTempFile(dir, absolute, data, current.text === null ? NEW_FILE_MODE : current.mode);
        // Compare, right before the swap: the path still names the file we read, which still says what it said.
        const now = await snapshot(absolute);
        await now.handle?.close();
        // And last, a stat only: the window left for a writer between it and the rename is one call.
        if (now.ino !== current.ino || now.text !== current.text || (await stampNow(absolute)) !== now.stamp) {
          await fs.rm(temp, { force: true });
          continue;
        }
        await fs.rename(temp, absolute).catch(async (error: unknown) => {
          await fs.rm(temp, { force: true });
          throw error;
        });
        await fsyncDirectory(dir);
        changed = true;
        pending = [];
        // A writer that opened the file just before the swap writes into the one we replaced: what it
        // changed there goes onto the file as it is now, in another round.
        const late = current.handle ? await lateWrite(current.handle, current.text) : null;
        if (late === null) return { file: absolute, changed: true };
        pending = lateEdits(read, late, after);
        if (pending.length === 0) return { file: absolute, changed: true };
      } finally {
        await current.handle?.close().catch(() => {});
      }
    }
    throw new AiZenError('config', `${update.shown} kept changing while ai-zen wrote it; nothing more was changed, run the command again`);
  } finally {
    await lock.release();
  }
}

/**
 * What remains, and why it is small: a rename only replaces, it cannot compare first, so a writer
 * whose own rename lands between our last look (one lstat) and our rename is replaced unseen —
 * closing that needs renameat2(RENAME_EXCHANGE), which Node does not offer; and a writer that opened
 * the old file before the swap and then stalls past QUIET_READS × SETTLE_MS (or LATE_WAIT_MS, once it
 * has truncated it) writes into a file nobody reads any more. A lock cannot help: editors and the
 * agents take none. Measured (test/cli/install-hooks-race.test.ts, an editor rewriting the file
 * every few ms, in place and by rename): 0 edits lost in 146 runs; 2 in 99 runs before.
 */
interface LateEdit {
  readonly key: string;
  /** The key's value in the file we wrote (JSON; undefined: absent): the edit applies while it is still that. */
  readonly ours: string | undefined;
  /** Whether the late writer kept the key, and its value. */
  readonly kept: boolean;
  readonly value: unknown;
}

/** The top-level keys the late writer changed from what we had read, each with its value in what we wrote. */
function lateEdits(read: Json, late: Json, written: Json): LateEdit[] {
  const edits: LateEdit[] = [];
  for (const key of new Set([...Object.keys(read), ...Object.keys(late)])) {
    if (JSON.stringify(read[key]) === JSON.stringify(late[key])) continue;
    edits.push({ key, ours: JSON.stringify(written[key]), kept: key in late, value: late[key] });
  }
  return edits;
}

/** `settings` with the late edits, each on a key nobody has changed since our swap (a newer edit wins). */
function withLateEdits(settings: Json, edits: readonly LateEdit[]): Json {
  if (edits.length === 0) return settings;
  const next: Json = { ...settings };
  for (const edit of edits) {
    if (JSON.stringify(next[edit.key]) !== edit.ours) continue;
    if (edit.kept) next[edit.key] = edit.value;
    else delete next[edit.key];
  }
  return next;
}

/**
 * What a writer left in the file we replaced, read until it holds still: the same text for
 * QUIET_READS reads SETTLE_MS apart (a writer that had opened it before the swap may be slow to
 * write on a loaded machine), and whole JSON once it differs from what we read (one that truncated
 * it and has not written yet is waited for, up to LATE_WAIT_MS). Null when nobody wrote into it.
 */
async function lateWrite(handle: fs.FileHandle, base: string | null): Promise<Json | null> {
  const deadline = Date.now() + LATE_WAIT_MS;
  let previous = base;
  let quiet = 0;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const text = await readAll(handle).catch(() => previous);
    quiet = text === previous ? quiet + 1 : 0;
    previous = text;
    if (quiet >= QUIET_READS) {
      if (text === base) return null;
      const late = parseObject(text);
      if (late !== null) return late;
      // Half-written: wait for the rest.
    }
    if (Date.now() > deadline) return text === null ? null : parseObject(text);
  }
}

function parseObject(text: string | null): Json | null {
  try {
    const value = text === null ? null : (JSON.parse(text) as unknown);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
  } catch {
    return null;
  }
}

async function snapshot(file: string): Promise<Snapshot> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { text: null, ino: null, stamp: null, mode: NEW_FILE_MODE, handle: null };
    throw error;
  }
  const text = await readAll(handle);
  const stat = await handle.stat({ bigint: true });
  return { text, ino: Number(stat.ino), stamp: stampOf(stat), mode: Number(stat.mode) & 0o777, handle };
}

function stampOf(stat: BigIntStats): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

/** The path's stamp now (null: nothing there), without reading: the cheapest last look before the swap. */
async function stampNow(file: string): Promise<string | null> {
  const stat = await fs.lstat(file, { bigint: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  return stat === null ? null : stampOf(stat);
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
