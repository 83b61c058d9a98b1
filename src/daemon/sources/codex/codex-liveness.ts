// Is a Codex session running? While a `codex` process has a thread open it holds an flock on
// `$CODEX_HOME/thread-writer-locks/<session id>.lock` and removes the file when it ends (seen with
// the real client, 0.171). The file alone could outlive a killed process, so on Linux the lock
// itself is looked up in /proc/locks by the file's inode; elsewhere the file's presence decides.
import { promises as fs } from 'node:fs';
import path from 'node:path';

export async function isCodexSessionLive(codexHome: string, sessionId: string, procLocks = '/proc/locks'): Promise<boolean> {
  // The id comes from a file name: never let it name another path.
  if (!/^[0-9A-Za-z-]+$/.test(sessionId)) return false;
  let inode: number;
  try {
    inode = (await fs.stat(path.join(codexHome, 'thread-writer-locks', `${sessionId}.lock`))).ino;
  } catch {
    return false;
  }
  let locks: string;
  try {
    locks = await fs.readFile(procLocks, 'utf8');
  } catch {
    return true; // no /proc/locks (macOS): the file is all there is to go by
  }
  // `1: FLOCK  ADVISORY  WRITE 28884 fe:00:2175635 0 EOF` — major:minor:inode.
  return locks.split('\n').some((line) => /\bFLOCK\b/.test(line) && line.split(/\s+/).some((field) => field.endsWith(`:${inode}`)));
}
