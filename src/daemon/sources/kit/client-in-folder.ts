// Whether an agent's client runs in a folder, for agents that hold no lock ai-zen can see (pi,
// opencode): read from /proc, a process whose working directory is the folder and whose command
// line names the client. Without /proc (macOS) nothing is known: not running.
import { promises as fs } from 'node:fs';
import path from 'node:path';

export async function clientRunsIn(
  directory: string,
  isClient: (argv: readonly string[]) => boolean,
  proc = '/proc',
  except: readonly number[] = [],
): Promise<boolean> {
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
    if (where !== directory) continue;
    const command = await fs.readFile(path.join(proc, pid, 'cmdline'), 'utf8').catch(() => '');
    if (isClient(command.split('\0'))) return true;
  }
  return false;
}
