// Is a Copilot CLI session running? While a `copilot` process has a session open it keeps
// `session-state/<id>/inuse.<pid>.lock` (its pid) and holds an flock on `inuse.<pid>.hold` beside it
// (seen with the real client, 1.0.102). The files can outlive a killed process, so on Linux the flock
// itself is looked up in /proc/locks by the file's inode; elsewhere the pid must still be running.
import { promises as fs } from 'node:fs';
import path from 'node:path';

const HOLD = /^inuse\.(\d+)\.hold$/;

export async function isCopilotSessionLive(sessionFolder: string, procLocks = '/proc/locks'): Promise<boolean> {
  let names: string[];
  try {
    names = await fs.readdir(sessionFolder);
  } catch {
    return false;
  }
  const holds = names.filter((name) => HOLD.test(name));
  if (holds.length === 0) return false;
  let locks: string | null;
  try {
    locks = await fs.readFile(procLocks, 'utf8');
  } catch {
    locks = null; // no /proc/locks (macOS): the pid is what there is to go by
  }
  for (const name of holds) {
    if (locks === null) {
      if (pidRuns(Number(HOLD.exec(name)![1]))) return true;
      continue;
    }
    let inode: number;
    try {
      inode = (await fs.stat(path.join(sessionFolder, name))).ino;
    } catch {
      continue;
    }
    // `1: FLOCK  ADVISORY  WRITE 6378 fe:00:2427429 0 EOF` — major:minor:inode.
    if (locks.split('\n').some((line) => /\bFLOCK\b/.test(line) && line.split(/\s+/).some((field) => field.endsWith(`:${inode}`))))
      return true;
  }
  return false;
}

function pidRuns(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
