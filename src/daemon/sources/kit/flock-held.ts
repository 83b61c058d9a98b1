// Whether a client's process still holds its flock on a file (Codex's thread lock, Copilot's
// session hold). The file can outlive a killed process, so on Linux the lock itself is looked up in
// /proc/locks by the file's inode.
import { promises as fs } from 'node:fs';

/** false: no such file, or nobody holds it; null: no /proc/locks (macOS), the caller goes by what else it knows. */
export async function flockHeld(file: string, procLocks = '/proc/locks'): Promise<boolean | null> {
  const inode = (await fs.stat(file).catch(() => null))?.ino;
  if (inode === undefined) return false;
  const locks = await fs.readFile(procLocks, 'utf8').catch(() => null);
  if (locks === null) return null;
  // `1: FLOCK  ADVISORY  WRITE 28884 fe:00:2175635 0 EOF` — major:minor:inode.
  return locks.split('\n').some((line) => /\bFLOCK\b/.test(line) && line.split(/\s+/).some((field) => field.endsWith(`:${inode}`)));
}
