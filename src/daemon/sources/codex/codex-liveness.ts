// Is a Codex session running? While a `codex` process has a thread open it holds an flock on
// `$CODEX_HOME/thread-writer-locks/<session id>.lock` and removes the file when it ends (seen with
// the real client, 0.171). Without /proc/locks (macOS) the file's presence decides.
import path from 'node:path';
import { flockHeld } from '../kit/flock-held.js';

export async function isCodexSessionLive(codexHome: string, sessionId: string, procLocks = '/proc/locks'): Promise<boolean> {
  // The id comes from a file name: never let it name another path.
  if (!/^[0-9A-Za-z-]+$/.test(sessionId)) return false;
  return (await flockHeld(path.join(codexHome, 'thread-writer-locks', `${sessionId}.lock`), procLocks)) !== false;
}
