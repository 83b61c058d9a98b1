// Puts the committed doc into the user's real index under git's own lock protocol
// (`<index>.lock` created exclusively, written, renamed over the index), so it appears exactly
// once: the ref update and the index update succeed together or the index is left alone.
// Without this, a commit whose index update lost a race would show the doc as "deleted" in
// `git status`, and the user's next commit would delete it.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Env } from '../paths.js';
import { runGit } from '../probe/run-git.js';

export type IndexLockResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string; readonly retryable: boolean };

export interface IndexEntry {
  readonly mode: string;
  readonly blob: string;
  readonly path: string;
}

/**
 * Holds index.lock while `whileLocked` runs (it updates the ref); when it succeeds, the real index
 * gains `entry` — every other entry, staged or not, byte for byte as it was — and the lock is committed.
 */
export async function withDocStagedInRealIndex<T>(options: {
  readonly cwd: string;
  readonly gitDir: string;
  readonly indexFile: string;
  readonly entry: IndexEntry;
  readonly env: Env | undefined;
  readonly whileLocked: () => Promise<IndexLockResult<T>>;
}): Promise<IndexLockResult<T>> {
  const lockFile = `${options.indexFile}.lock`;
  let lock: fs.FileHandle;
  try {
    lock = await fs.open(lockFile, 'wx', 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { ok: false, reason: 'index.lock is held by another git process', retryable: true };
    return { ok: false, reason: `cannot lock the index: ${(error as Error).message}`, retryable: true };
  }
  const scratch = path.join(options.gitDir, `ai-zen-index-${process.pid}-${randomBytes(4).toString('hex')}`);
  let committedLock = false;
  try {
    // Read the index only now that we hold its lock: no update of the user's can be lost.
    const copied = await fs.copyFile(options.indexFile, scratch).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return false;
        throw error;
      },
    );
    const { mode, blob, path: entryPath } = options.entry;
    const added = await runGit(options.cwd, ['update-index', '--add', '--cacheinfo', `${mode},${blob},${entryPath}`], {
      env: options.env,
      extraEnv: { GIT_INDEX_FILE: scratch },
    });
    if (!added.ok) return { ok: false, reason: `cannot stage the document: ${added.message}`, retryable: true };
    if (!copied && !(await fs.access(scratch).then(() => true, () => false))) {
      return { ok: false, reason: 'cannot stage the document: no index was written', retryable: true };
    }
    await lock.write(await fs.readFile(scratch));
    await lock.sync();
    await lock.close();

    const result = await options.whileLocked();
    if (!result.ok) return result;
    await fs.rename(lockFile, options.indexFile);
    committedLock = true;
    return result;
  } finally {
    await lock.close().catch(() => undefined);
    if (!committedLock) await fs.rm(lockFile, { force: true });
    await fs.rm(scratch, { force: true });
    await fs.rm(`${scratch}.lock`, { force: true });
  }
}
