// One read-change-write of an agent's settings file (Claude Code's settings.local.json, Codex's
// hooks.json) that loses nobody's edit and keeps the file's mode:
// - the mode the file had (a 0600 file with an API key in it stays 0600; a new one is 0600);
// - a lock of ours, so two ai-zen commands take turns;
// - a compare-and-swap against everyone else (an editor, the agent itself), which take no lock
//   (settings-swap.ts): the file is taken aside by rename, compared with what was read and put
//   straight back if another writer got in; ours goes in by link(), which fails rather than
//   replace a file someone wrote in between. The file taken aside is then read until it holds
//   still: an edit written into it meanwhile is carried, key by key, onto the file as it is then,
//   and written again. The path is missing for the two system calls between the rename and the
//   link; a crash there leaves the file aside, and the next run puts it back first.
import { closeSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { AiZenError } from '../../errors.js';
import { NotRegularFileError } from '../../fs/open-regular-file.js';
import { fsyncDirectory, prepareWriteInside, writeTempFileSync } from '../../fs/safe-write.js';
import { hashRealPath } from '../../lock/lock-names.js';
import { acquireLock, type HeldLock } from '../../lock/os-lock.js';
import type { Env } from '../../paths.js';
import { HALF_WRITTEN_PAUSE_MS, HALF_WRITTEN_READS, type Json, parseSettingsObject, SettingsNotJson } from './hook-groups.js';
import { editedText, type SettingsSyntax } from './settings-jsonc.js';
import { ASIDE_SUFFIX, putBackAside, readAll, readSnapshot, swapIn } from './settings-swap.js';

/** Rounds of compare-and-swap before giving up on a file that keeps changing under us. */
const MAX_ROUNDS = 200;
/** How often the file taken aside is read again after the swap (a write begun before it lands in it). */
const SETTLE_MS = 30;
/** Reads in a row that find the file taken aside unchanged before it counts as left alone. */
const QUIET_READS = 4;
/** How long a write into the file taken aside that has begun (it changed, and is not whole yet) is waited for. */
const LATE_WAIT_MS = 5_000;
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
  /** How the file's text is read and written (default: a JSON object, strict: settingsFormat says the others). */
  readonly format?: SettingsFormat;
}

/**
 * A settings file's text as the swap sees it: an object whose top-level keys a late writer's edits
 * are carried by. `parse` throws SettingsNotJson on a text that is not whole (null: no file).
 */
export interface SettingsFormat {
  parse(text: string | null, shown: string): Json;
  /** The text to write for `value`; `before` is the file's text (null: none) and what it read as. */
  serialize(value: Json, before: { readonly text: string | null; readonly value: Json }, shown: string): string;
}

export const JSON_SETTINGS: SettingsFormat = {
  parse: (text, shown) => (text === null ? {} : parseSettingsObject(text, shown)),
  serialize: (value) => `${JSON.stringify(value, null, 2)}\n`,
};

/**
 * A settings file read as its agent reads it. With comments allowed, a write is edits to the user's
 * text (settings-jsonc.ts), so their comments and layout stay; a new file is written as JSON.
 */
export function settingsFormat(syntax: SettingsSyntax): SettingsFormat {
  if (syntax === 'json') return JSON_SETTINGS;
  return {
    parse: (text, shown) => (text === null ? {} : parseSettingsObject(text, shown, syntax)),
    serialize: (value, before, shown) => {
      if (before.text === null) return JSON_SETTINGS.serialize(value, before, shown);
      const edited = editedText(before.text, before.value, value, syntax);
      if (edited === null) throw new AiZenError('config', `${shown} could not be edited with its comments kept; nothing was changed`);
      return edited;
    },
  };
}

/** Applies `change` to the file; returns whether its content changed. */
export async function updateSettingsFile(update: SettingsUpdate): Promise<{ file: string; changed: boolean }> {
  const format = update.format ?? JSON_SETTINGS;
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
    if (putBackAside(absolute, aside)) await fsyncDirectory(dir);
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const current = snapshotOf(absolute, update.shown);
      let read: Json;
      try {
        read = format.parse(current.text, update.shown);
      } catch (error) {
        // Caught halfway through someone's in-place write: read again in a moment. One that stays broken is the user's to fix.
        if (!(error instanceof SettingsNotJson)) throw error;
        halfWritten += 1;
        if (halfWritten === HALF_WRITTEN_READS) throw new AiZenError('config', error.message);
        await new Promise((resolve) => setTimeout(resolve, HALF_WRITTEN_PAUSE_MS));
        continue;
      }
      halfWritten = 0;
      const before = withLateEdits(read, pending);
      const after = update.change(before);
      if (JSON.stringify(read) === JSON.stringify(after)) return { file: absolute, changed };
      const text = format.serialize(after, { text: current.text, value: read }, update.shown);
      const temp = writeTempFileSync(dir, absolute, text, current.mode);
      let swap: ReturnType<typeof swapIn>;
      try {
        swap = swapIn(absolute, aside, temp, current);
      } finally {
        await fs.rm(temp, { force: true });
      }
      if (swap === 'changed') continue;
      await fsyncDirectory(dir);
      changed ||= swap.placed;
      // A writer that opened the file just before the swap writes into the one we took aside: what it
      // changed there goes onto the file as it is now, in another round.
      const taken = swap.taken;
      const late = taken === null ? null : await lateWrite(taken, current.text, format).finally(() => closeQuietly(taken));
      await fs.rm(aside, { force: true });
      if (late !== null) pending = carried(pending, lateEdits(read, late, swap.placed ? after : read));
      else if (swap.placed) return { file: absolute, changed: true };
    }
    throw new AiZenError('config', `${update.shown} kept changing while ai-zen wrote it; nothing more was changed, run the command again`);
  } finally {
    await lock.release();
  }
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
async function lateWrite(fd: number, base: string | null, format: SettingsFormat): Promise<Json | null> {
  const deadline = Date.now() + LATE_WAIT_MS;
  let previous = base;
  let quiet = 0;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    let text = previous;
    try {
      text = readAll(fd);
    } catch {}
    quiet = text === previous ? quiet + 1 : 0;
    previous = text;
    if (quiet >= QUIET_READS) {
      if (text === base) return null;
      const late = parseObject(text, format);
      if (late !== null) return late;
      // Half-written: wait for the rest.
    }
    if (Date.now() > deadline) return text === null ? null : parseObject(text, format);
  }
}

function parseObject(text: string | null, format: SettingsFormat): Json | null {
  try {
    return text === null ? null : format.parse(text, '');
  } catch {
    return null;
  }
}

/** readSnapshot, with the one clear line for a path that holds no regular file (a FIFO there used to hang the command). */
function snapshotOf(absolute: string, shown: string): ReturnType<typeof readSnapshot> {
  try {
    return readSnapshot(absolute);
  } catch (error) {
    if (NotRegularFileError.isInstance(error))
      throw new AiZenError('config', `${shown} is ${error.what}, not a regular file; nothing was changed`, { cause: error });
    throw error;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {}
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
