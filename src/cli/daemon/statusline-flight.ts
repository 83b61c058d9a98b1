// Claude Code does not coalesce statusline runs: a slow machine piles them up, each a Node process
// (20 at once saturated both cores here). So one run per session at a time: a run that finds another
// alive prints the last line that one printed and exits. The lock and the last line are small files
// in the user's private run folder; every step is synchronous and cheap (this runs on every refresh),
// and any failure degrades to running as before, never to no line.
import { mkdirSync, openSync, closeSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runFolder, type Env } from '../../paths.js';

export type Flight =
  /** This run computes the line; `land` stores it (null: nothing new to keep) and lets the next run fly. */
  | { readonly kind: 'first'; readonly last: string | null; land(line: string | null): void }
  /** Another run of the same session is alive: print `last` (when there is one) and exit. */
  | { readonly kind: 'busy'; readonly last: string | null };

/** A session's last line is forgotten after a week without a run. */
const FORGET_AFTER_MS = 7 * 24 * 60 * 60 * 1000;

/** The file-name-safe key of a session (its id as Claude gives it), else of the folder. */
export function flightKey(sessionId: string | null, folder: string): string {
  if (sessionId !== null && /^[A-Za-z0-9_-]{1,64}$/.test(sessionId)) return sessionId;
  // FNV-1a: a name, not a secret, and node:crypto costs a statusline run more than this.
  let hash = 0x811c9dc5;
  for (const char of sessionId ?? folder) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return `h${hash.toString(16)}`;
}

export function takeOff(env: Env, key: string, pid = process.pid): Flight {
  const folder = runFolder(env);
  const lock = path.join(folder, `statusline-${key}.lock`);
  const lineFile = path.join(folder, `statusline-${key}.line`);
  const last = readLast(lineFile);
  const unlocked: Flight = { kind: 'first', last, land: (line) => keep(folder, lineFile, last, line) };
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch {
    return unlocked;
  }
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeFileSync(fd, String(pid));
      closeSync(fd);
      return {
        kind: 'first',
        last,
        land(line) {
          keep(folder, lineFile, last, line);
          release(lock);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return unlocked;
    }
    let text: string;
    try {
      text = readFileSync(lock, 'utf8');
    } catch {
      continue; // released in between: try again
    }
    const holder = Number(text.trim() || Number.NaN);
    // Only a lock whose writer died (a kill -9) is taken over; one still being written (no pid yet) is busy.
    if (Number.isInteger(holder) && holder > 0 && !alive(holder)) release(lock);
    else return { kind: 'busy', last };
  }
  return { kind: 'busy', last };
}

/** Removes a file that may be gone already. unlink, not rm: Node 20's rmSync loads its recursive remover first. */
function release(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Gone already (another run released it).
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLast(file: string): string | null {
  try {
    const text = readFileSync(file, 'utf8').split('\n')[0] ?? '';
    return text === '' ? null : text.slice(0, 1024);
  } catch {
    return null;
  }
}

function keep(folder: string, file: string, last: string | null, line: string | null): void {
  if (line === null || line === last) return;
  try {
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${line}\n`, { mode: 0o600 });
    renameSync(temporary, file);
    // A session's first line: the time to forget those of sessions gone quiet for a week.
    if (last === null) forgetOld(folder);
  } catch {
    // The next run computes its own line.
  }
}

function forgetOld(folder: string): void {
  const before = Date.now() - FORGET_AFTER_MS;
  for (const name of readdirSync(folder)) {
    if (!/^statusline-.+\.line$/.test(name)) continue;
    const file = path.join(folder, name);
    if (statSync(file).mtimeMs < before) release(file);
  }
}
