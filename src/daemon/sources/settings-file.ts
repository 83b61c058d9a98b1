// One read-change-write of an agent's settings file (Claude Code's settings.local.json, Codex's
// hooks.json) that loses nobody's edit and keeps the file's mode (issue 22 §6 and Low):
// - the mode the file had (a 0600 file with an API key in it stays 0600; a new one is 0600);
// - a lock of ours, so two ai-zen commands take turns;
// - a compare-and-swap against everyone else (an editor, the agent itself), which take no lock.
//   A rename cannot compare first, and Node has no renameat2(RENAME_EXCHANGE), so the swap is
//   two steps that each fail instead of replacing: the file is taken aside by rename (whatever is
//   there then — another writer's newer file too — is what we took, nothing is replaced), and ours
//   is put in by link(), which fails if someone wrote the path in between. What we took is then
//   read until it holds still: whatever differs from what we had read (a writer's rename before
//   ours, an in-place write into it) is carried, key by key, onto the file as it is then, and
//   written again. The path is missing for the two system calls between the rename and the link;
//   a crash there leaves the file aside, and the next run puts it back (ASIDE_SUFFIX).
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
/** How often the file taken aside is read again after the swap (a write begun before it lands in it). */
const SETTLE_MS = 30;
/** Reads in a row that find the file taken aside unchanged before it counts as left alone. */
const QUIET_READS = 4;
/** How long a write into the file taken aside that has begun (it changed, and is not whole yet) is waited for. */
const LATE_WAIT_MS = 5_000;
/** How long one ai-zen command waits for another to finish its write. */
const LOCK_WAIT_MS = 15_000;
/** The name the file has while it is taken aside (one at a time: the lock is held). */
const ASIDE_SUFFIX = '.ai-zen-aside';

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
  /** inode, size, modification and change times (null: no file): what the checks around the swap compare. */
  readonly stamp: string | null;
  readonly mode: number;
}

/** Applies `change` to the file; returns whether its content changed. */
export async function updateSettingsFile(update: SettingsUpdate): Promise<{ file: string; changed: boolean }> {
  const absolute = await prepareWriteInside(update.root, update.name);
  const dir = path.dirname(absolute);
  const aside = `${absolute}${ASIDE_SUFFIX}`;
  const lock = await waitForLock(`settings-${hashRealPath(absolute, 24)}`, update.env);
  let changed = false;
  let halfWritten = 0;
  // Edits another writer made to the file we took aside: carried onto whatever the file says
  // next, round after round, until a swap that includes them holds.
  let pending: readonly LateEdit[] = [];
  try {
    await putBackAside(absolute, aside);
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const current = await snapshot(absolute);
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
      if (JSON.stringify(read) === JSON.stringify(after)) return { file: absolute, changed };
      const temp = await writeTempFile(dir, absolute, `${JSON.stringify(after, null, 2)}\n`, current.mode);
      const swap = await swapIn(absolute, aside, temp, current).finally(() => fs.rm(temp, { force: true }));
      if (swap === 'changed') continue;
      changed ||= swap.placed;
      // A writer that opened the file just before the swap writes into the one we took aside: what it
      // changed there goes onto the file as it is now, in another round.
      const late = swap.taken ? await lateWrite(swap.taken, current.text) : null;
      await swap.taken?.close().catch(() => {});
      await fs.rm(aside, { force: true });
      if (late !== null) pending = carried(pending, lateEdits(read, late, swap.placed ? after : read));
      else if (swap.placed) return { file: absolute, changed: true };
    }
    throw new AiZenError('config', `${update.shown} kept changing while ai-zen wrote it; nothing more was changed, run the command again`);
  } finally {
    await lock.release();
  }
}

interface Swap {
  /** Whether our file is at the path now (false: someone created the path between our two steps). */
  readonly placed: boolean;
  /** The file we took aside, open (null: there was none). */
  readonly taken: fs.FileHandle | null;
}

/**
 * Takes the file aside by rename, and puts `temp` in by link (never over anything) if what was
 * taken is the very file read: 'changed' (put back, nothing else done) when it is not.
 */
async function swapIn(absolute: string, aside: string, temp: string, read: Snapshot): Promise<Swap | 'changed'> {
  // A cheap look first: a file that changed since we read it is read again without a swap.
  if ((await stampNow(absolute)) !== read.stamp) return 'changed';
  const tookAside = await fs.rename(absolute, aside).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );
  if (!tookAside) return read.stamp === null ? placeOurs(absolute, temp, null) : 'changed';
  const taken = await fs.open(aside, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => null);
  // (The take itself moved its change time: the rest of the stamp, and the text, must be as read.)
  const same =
    taken !== null &&
    withoutChangeTime(stampOf(await taken.stat({ bigint: true }))) === withoutChangeTime(read.stamp) &&
    (await readAll(taken)) === read.text;
  if (same) return placeOurs(absolute, temp, taken);
  // Another writer got in between the look and the take: theirs goes back where it was, at once.
  await taken?.close();
  await fs.link(aside, absolute).catch((error: NodeJS.ErrnoException) => {
    // Created meanwhile by someone who read theirs (it was at the path till the take): it stands.
    if (error.code !== 'EEXIST') throw error;
  });
  await fs.rm(aside, { force: true });
  await fsyncDirectory(path.dirname(absolute));
  return 'changed';
}

async function placeOurs(absolute: string, temp: string, taken: fs.FileHandle | null): Promise<Swap> {
  const placed = await fs.link(temp, absolute).then(
    () => true,
    async (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return false;
      // A file system without hard links (some network and FUSE mounts): the rename that replaces,
      // onto the path we just emptied — the window of the old way, but never an error.
      if (error.code === 'EPERM' || error.code === 'ENOTSUP' || error.code === 'ENOSYS') return fs.rename(temp, absolute).then(() => true);
      // Never leave the path empty: what we took goes back before the error is told.
      if (taken) await fs.link(`${absolute}${ASIDE_SUFFIX}`, absolute).catch(() => {});
      await taken?.close();
      throw error;
    },
  );
  await fsyncDirectory(path.dirname(absolute));
  return { placed, taken };
}

/**
 * A crash between the two steps of a swap leaves the file aside and the path empty: put it back
 * (a regular file only), or drop an aside whose swap completed.
 */
async function putBackAside(absolute: string, aside: string): Promise<void> {
  const stat = await fs.lstat(aside).catch(() => null);
  if (stat === null) return;
  if (stat.isFile()) await fs.link(aside, absolute).catch(() => {});
  await fs.rm(aside, { force: true });
  await fsyncDirectory(path.dirname(absolute));
}

/**
 * What remains: a writer that opened the file before it was taken aside and then stalls past
 * QUIET_READS × SETTLE_MS before writing (or past LATE_WAIT_MS once its write has begun) writes into
 * a file nobody reads any more. A lock cannot help: editors and the agents take none. A writer's
 * rename is never replaced unseen: one before our take is what we take, compare, and put back; one
 * after it makes our link fail. Measured with test/cli/install-hooks-race.test.ts (an editor
 * rewriting the file every few ms, in place and by rename).
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

/** The edits still to carry: the new ones, and the earlier ones on other keys. */
function carried(earlier: readonly LateEdit[], found: readonly LateEdit[]): LateEdit[] {
  const keys = new Set(found.map((edit) => edit.key));
  return [...earlier.filter((edit) => !keys.has(edit.key)), ...found];
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
 * What a writer left in the file we took aside, read until it holds still: the same text for
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
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { text: null, stamp: null, mode: NEW_FILE_MODE };
    throw error;
  }
  try {
    const text = await readAll(handle);
    const stat = await handle.stat({ bigint: true });
    return { text, stamp: stampOf(stat), mode: Number(stat.mode) & 0o777 };
  } finally {
    await handle.close();
  }
}

function stampOf(stat: BigIntStats): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

function withoutChangeTime(stamp: string | null): string | null {
  return stamp === null ? null : stamp.slice(0, stamp.lastIndexOf(':'));
}

/** The path's stamp now (null: nothing there), without reading. */
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
