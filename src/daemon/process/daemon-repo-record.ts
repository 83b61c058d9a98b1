// Which repo a daemon's socket and lock in the run folder belong to. Their names are hashes of the
// repo's path (short enough for any socket address), so each daemon leaves its repo's path beside
// them, `d-<hash>.repo`: doctor names a dead daemon's leftovers by their repo, not by a hash.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileInside } from '../../fs/safe-write.js';
import { hashRealPath } from '../../lock/lock-names.js';
import { runFolder, type Env } from '../../paths.js';

const RECORD_BYTES = 4096;

/** The record's name for the daemon of `repoRoot`: the socket's hash (`d-<16 hex>.sock`). */
function recordName(hash: string): string {
  return `d-${hash}.repo`;
}

/** Written by a daemon as it starts; left in place (a few hundred bytes), as its lock is, for the next one. */
export async function recordDaemonRepo(repoRoot: string, env: Env): Promise<void> {
  const real = await fs.realpath(repoRoot).catch(() => path.resolve(repoRoot));
  await writeFileInside(runFolder(env), recordName(hashRealPath(repoRoot, 16)), `${real}\n`, { mode: 0o600 });
}

/** The repo a socket or lock hash (its first 16 hex digits) belongs to, as its daemon recorded it; null: none did. */
export async function recordedRepoOf(hash: string, env: Env): Promise<string | null> {
  const file = path.join(runFolder(env), recordName(hash.slice(0, 16)));
  const handle = await fs.open(file, 'r').catch(() => null);
  if (!handle) return null;
  try {
    const buffer = Buffer.alloc(RECORD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, RECORD_BYTES, 0);
    const repo = buffer.subarray(0, bytesRead).toString('utf8').trim();
    return repo.length > 0 && !repo.includes('\n') && path.isAbsolute(repo) ? repo : null;
  } finally {
    await handle.close();
  }
}
