// The per-user private folder that holds ai-zen's locks and sockets (`$AI_ZEN_HOME/run`, see
// paths.ts). Mode 0700 and owned by us, or we refuse: anyone who can write there could take a
// lock or stand in for the daemon.
import fs from 'node:fs/promises';
import { AiZenError } from '../errors.js';

/** A real folder (no symlink), owned by `uid`, mode 0700 (tightened if looser); created when missing. */
export async function ensurePrivateDir(dir: string, uid: number = currentUid()): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const stat = await fs.lstat(dir);
  if (!stat.isDirectory()) {
    throw new AiZenError('daemon', `runtime folder ${dir} is not a folder (a symlink or a file); refusing to use it`);
  }
  if (uid >= 0 && stat.uid !== uid) {
    throw new AiZenError('daemon', `runtime folder ${dir} belongs to uid ${stat.uid}, not to you (${uid}); refusing to use it`);
  }
  if ((stat.mode & 0o777) !== 0o700) await fs.chmod(dir, 0o700);
}

function currentUid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : -1;
}
