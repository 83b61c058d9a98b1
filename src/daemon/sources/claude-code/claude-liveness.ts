// While a `claude` process runs, `${CLAUDE_CONFIG_DIR:-~/.claude}/sessions/<pid>.json` names its
// session (the client removes it on exit; a crash leaves it, so the pid is checked too). A few
// small files, read only when status or a handoff asks.
import { readRegularText } from '../../../fs/open-regular-file.js';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export async function isClaudeSessionLive(
  sessionsDir: string,
  sessionId: string,
  isAlive: (pid: number) => boolean = pidAlive,
): Promise<boolean> {
  let names: string[];
  try {
    names = await fs.readdir(sessionsDir);
  } catch {
    return false;
  }
  for (const name of names) {
    const pid = /^(\d+)\.json$/.exec(name)?.[1];
    if (pid === undefined || !isAlive(Number(pid))) continue;
    try {
      const record: unknown = JSON.parse(await readRegularText(path.join(sessionsDir, name)));
      if (record && typeof record === 'object' && (record as { sessionId?: unknown }).sessionId === sessionId) return true;
    } catch {
      // Being written or removed right now, or not a file at all: not this one.
    }
  }
  return false;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
