// Is a Copilot CLI session running? While a `copilot` process has a session open it keeps
// `session-state/<id>/inuse.<pid>.lock` (its pid) and holds an flock on `inuse.<pid>.hold` beside it
// (seen with the real client, 1.0.102). Without /proc/locks (macOS) the pid must still be running.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { flockHeld } from '../kit/flock-held.js';
import { pidAlive } from '../kit/session-registry.js';

const HOLD = /^inuse\.(\d+)\.hold$/;

export async function isCopilotSessionLive(sessionFolder: string, procLocks = '/proc/locks'): Promise<boolean> {
  const names = await fs.readdir(sessionFolder).catch(() => [] as string[]);
  for (const name of names) {
    const pid = HOLD.exec(name)?.[1];
    if (pid === undefined) continue;
    const held = await flockHeld(path.join(sessionFolder, name), procLocks);
    if (held === true || (held === null && Number(pid) > 0 && pidAlive(Number(pid)))) return true;
  }
  return false;
}
