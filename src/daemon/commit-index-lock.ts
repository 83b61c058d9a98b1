// Puts the committed doc into the user's real index under git's own lock protocol
// (`<index>.lock` created exclusively, written, renamed over the index), so the ref update and
// the index update succeed together or the index is left alone. Without this, a commit whose
// index update lost a race would show the doc as "deleted" in `git status`, and the user's
// next commit would delete it again.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Env } from '../paths.js';
import { runGit } from '../probe/run-git.js';

export type IndexLockResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: string; readonly retryable: boolean };

export interface IndexEntry {
  readonly mode: string;
  readonly blob: string;
  readonly path: string;
}

/**
 * Holds index.lock while `whileLocked` runs (it moves HEAD). When that succeeds, the doc's entry
 * in the real index becomes `entry` — but only if the user had nothing of their own staged for
 * the doc (its index entry matched the old HEAD's, or both lacked it); a version of the doc the
 * user staged, or its staged removal, stays as it is. Every other entry is untouched.
 */
export async function withDocStagedInRealIndex<T>(options: {
  readonly cwd: string;
  readonly gitDir: string;
  readonly indexFile: string;
  readonly entry: IndexEntry;
  /** The doc's entry in the commit being replaced as HEAD, `mode blob` or null. */
  readonly entryAtOldHead: string | null;
  readonly env: Env | undefined;
  readonly whileLocked: () => Promise<IndexLockResult<T>>;
}): Promise<IndexLockResult<T>> {
  const lockFile = `${options.indexFile}.lock`;
  let lock: fs.FileHandle;
  try {
    lock = await fs.open(lockFile, 'wx', 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      return { ok: false, reason: 'index.lock is held by another git process', retryable: true };
    }
    return { ok: false, reason: `cannot lock the index: ${(error as Error).message}`, retryable: true };
  }
  const scratch = path.join(options.gitDir, `ai-zen-index-${process.pid}-${randomBytes(4).toString('hex')}`);
  const inScratch = { env: options.env, extraEnv: { GIT_INDEX_FILE: scratch } };
  let replaceIndex = false;
  try {
    // Read the index only now that we hold its lock: no update of the user's can be lost.
    await fs.copyFile(options.indexFile, scratch).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    // --error-unmatch: a doc not in the index is said on stderr, not by silence (simple-git waits
    // 50 ms more for a git that printed nothing).
    const current = await runGit(options.cwd, ['ls-files', '--stage', '--error-unmatch', '-z', '--', options.entry.path], inScratch);
    // Exit 1 is that unmatched pathspec (git's other failures exit 128); the message may be translated.
    const notInIndex = !current.ok && current.exitCode === 1 && current.stdout === '';
    if (!current.ok && !notInIndex) return { ok: false, reason: `cannot read the index: ${current.message}`, retryable: true };
    const currentEntry = current.ok ? /^(\d{6}) ([0-9a-f]+) 0\t/.exec(current.stdout) : null;
    const inSync = (currentEntry ? `${currentEntry[1]} ${currentEntry[2]}` : null) === options.entryAtOldHead;

    if (inSync) {
      const { mode, blob, path: entryPath } = options.entry;
      const added = await runGit(options.cwd, ['update-index', '--verbose', '--add', '--cacheinfo', `${mode},${blob},${entryPath}`], inScratch);
      if (!added.ok) return { ok: false, reason: `cannot stage the document: ${added.message}`, retryable: true };
      await lock.write(await fs.readFile(scratch));
      await lock.sync();
    }
    await lock.close();

    const result = await options.whileLocked();
    if (result.ok && inSync) {
      await fs.rename(lockFile, options.indexFile);
      replaceIndex = true;
    }
    return result;
  } finally {
    await lock.close().catch(() => undefined);
    if (!replaceIndex) await fs.rm(lockFile, { force: true });
    await fs.rm(scratch, { force: true });
    await fs.rm(`${scratch}.lock`, { force: true });
  }
}
