// The note a daemon that exited idle leaves in its repo (`.ai-zen/logs/idle-exit.json`), so `status`
// there says "exited idle, the next session starts it" rather than "not running" as if it had died.
// The next daemon removes it when it starts.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readRegularText } from '../../fs/open-regular-file.js';
import { writeFileInside } from '../../fs/safe-write.js';
import type { ProjectPaths } from '../../paths.js';

export interface IdleExitNote {
  readonly pid: number;
  /** ISO time of the exit. */
  readonly at: string;
  readonly reason: string;
}

const FILE = 'idle-exit.json';

function notePath(paths: ProjectPaths): string {
  return path.join(paths.logs, FILE);
}

export async function writeIdleExitNote(paths: ProjectPaths, note: IdleExitNote): Promise<void> {
  await writeFileInside(paths.root, path.relative(paths.root, notePath(paths)), `${JSON.stringify(note)}\n`, { mode: 0o600 });
}

export async function clearIdleExitNote(paths: ProjectPaths): Promise<void> {
  await fs.rm(notePath(paths), { force: true });
}

/** The note, or null when there is none (or it is not one ai-zen wrote). */
export async function readIdleExitNote(paths: ProjectPaths): Promise<IdleExitNote | null> {
  try {
    const value = JSON.parse((await readRegularText(notePath(paths))).slice(0, 4096)) as Partial<IdleExitNote>;
    if (typeof value.pid !== 'number' || typeof value.at !== 'string' || typeof value.reason !== 'string') return null;
    return { pid: value.pid, at: value.at, reason: value.reason };
  } catch {
    return null;
  }
}
