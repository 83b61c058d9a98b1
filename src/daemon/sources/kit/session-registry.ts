// The registry of running sessions Claude Code keeps, and Qwen Code after it: while the client runs,
// `<registry>/<pid>.json` names its session (`${CLAUDE_CONFIG_DIR:-~/.claude}/sessions`,
// `${QWEN_HOME:-~/.qwen}/sessions`; the client removes it on exit; a crash leaves it, so the pid is
// checked too). A few small files, read only when status or a handoff asks.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readRegularText } from '../../../fs/open-regular-file.js';

/** Whether a live process's record in the registry names the session. */
export async function isRegisteredLive(
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

/** The registry's record of a running client process; null: it has none (or it is being written or removed). */
export async function registryRecordOf(sessionsDir: string, pid: number): Promise<Readonly<Record<string, unknown>> | null> {
  try {
    const record: unknown = JSON.parse(await readRegularText(path.join(sessionsDir, `${pid}.json`)));
    return record && typeof record === 'object' && !Array.isArray(record) ? (record as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Whether the process runs (one of another user's, which may not be signalled, runs too). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The liveness of transcripts named `<session id>.jsonl`, by the registry. */
export function registryLiveness(registry: string): (file: string) => Promise<boolean> {
  return (file) => isRegisteredLive(registry, path.basename(file, '.jsonl'));
}
