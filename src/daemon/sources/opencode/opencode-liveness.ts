// Is an opencode session running? opencode holds no lock ai-zen can see, so on Linux it is read from
// /proc: a process running opencode (or kilo) whose working directory is the session's `directory`,
// and the session is the one of that directory opencode wrote to last — as pi's liveness is read
// (pi-liveness.ts). Without /proc (macOS) nothing is known: not live.
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** The client's program as its argv[0] names it: the binary (`opencode`, `kilo`, npm's `opencode.exe`). */
const CLIENT = /(?:^|\/)\.?(?:opencode|kilo)(?:\.exe)?$/;

export interface SessionPlace {
  /** The session's directory, and whether no session of that directory was written to after it; null: not known. */
  place(file: string): { readonly directory: string; readonly newest: boolean } | null;
}

export async function isOpencodeSessionLive(
  file: string,
  sessions: SessionPlace,
  proc = '/proc',
  except: readonly number[] = [],
): Promise<boolean> {
  const place = sessions.place(file);
  if (place === null || !place.newest) return false;
  let pids: string[];
  try {
    pids = (await fs.readdir(proc)).filter((name) => /^\d+$/.test(name));
  } catch {
    return false;
  }
  for (const pid of pids) {
    if (except.includes(Number(pid))) continue;
    // Another user's process, or one that just ended: not ours to see.
    const where = await fs.readlink(path.join(proc, pid, 'cwd')).catch(() => null);
    if (where !== place.directory) continue;
    const command = await fs.readFile(path.join(proc, pid, 'cmdline'), 'utf8').catch(() => '');
    // The program only: a hook ai-zen's plugin runs (`sh -c … hook opencode Stop`) is no opencode.
    if (CLIENT.test(command.split('\0', 1)[0] ?? '')) return true;
  }
  return false;
}
