// Lands a prepared handoff commit: HEAD moves and the doc enters the user's real index together,
// under git's own index lock (`<index>.lock`, created exclusively), so the user's `git add` and
// `git commit` never interleave with it — and the lock is held as briefly as possible,
// because git fails at once, it does not wait, on a held lock:
// - everything is prepared before the lock: the new index (a copy of the user's with the doc's
//   entry set) and a waiting `git update-ref --stdin` transaction;
// - the lock is taken in a quiet moment of the user's own git activity (no index.lock, the index
//   not written for a little while), as well-behaved background git tools do;
// - under the lock: the index is checked unchanged since it was copied (else all is prepared again),
//   HEAD is checked on the same branch, the new index is renamed into place, and the ref is locked,
//   compared and written in one exchange with the waiting git; if HEAD moved meanwhile, the user's
//   index goes back as it was before the lock is released (nobody could write it in between).
// The index goes in BEFORE the ref: the other order leaves a moment — and after a kill,
// a state — where HEAD holds the doc and the index does not, which `git status` shows as a staged
// deletion that the user's next commit would make real. This order's worst case is the doc staged
// as a new file, and only when the process dies between the two steps.
import { randomBytes } from 'node:crypto';
import fsSync, { constants, promises as fs, type BigIntStats } from 'node:fs';
import path from 'node:path';
import type { Env } from '../../paths.js';
import { spawnGit } from '../../probe/spawn-git.js';
import { startRefTransaction } from './commit-ref-transaction.js';

export type IndexLockResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: string; readonly retryable: boolean };

export interface IndexEntry {
  readonly mode: string;
  readonly blob: string;
  readonly path: string;
}

export interface QuietMoment {
  /** The index counts as quiet once it has not been written for this long. Default 100 ms. */
  readonly quietMs?: number;
  /** Wait at most this long for a quiet moment, then go anyway. Default 10 s. */
  readonly maxWaitMs?: number;
}

export interface LandCommitOptions {
  readonly cwd: string;
  readonly gitDir: string;
  readonly indexFile: string;
  /** `refs/heads/…`: HEAD must still be on it under the lock. */
  readonly branch: string;
  /** The commit HEAD pointed at when the new commit was built (compare-and-swap). */
  readonly oldHead: string;
  readonly newCommit: string;
  readonly reflogMessage: string;
  readonly entry: IndexEntry;
  /** The doc's entry in the commit being replaced as HEAD, `mode blob` or null. */
  readonly entryAtOldHead: string | null;
  readonly env: Env | undefined;
  readonly quiet?: QuietMoment;
  /** How long index.lock was held, for the benchmark. */
  readonly onLockHeld?: (milliseconds: number) => void;
}

/** Times the index changed under us, or the lock was taken, before the commit gives up (retried later). */
const MAX_ROUNDS = 4;

/**
 * Moves HEAD to `newCommit` and, when the user had nothing of their own staged for the doc (its index
 * entry matched the old HEAD's, or both lacked it), sets the doc's entry in the real index to `entry`;
 * a version of the doc the user staged, or its staged removal, stays. Every other entry is untouched.
 */
export async function landCommit(options: LandCommitOptions): Promise<IndexLockResult<string>> {
  const lockFile = `${options.indexFile}.lock`;
  for (let round = 1; ; round += 1) {
    const prepared = await prepareIndex(options);
    if (!prepared.ok) return prepared;
    const transaction = await startRefTransaction(options.cwd, options.reflogMessage, options.env);
    try {
      if ('failed' in transaction) return { ok: false, reason: `cannot start the ref update: ${transaction.failed}`, retryable: true };
      await waitForQuietIndex(options.indexFile, options.quiet);
      // Under the lock every file step is a plain synchronous syscall (microseconds each): an async
      // one is a hop to libuv's thread pool and back, which a busy machine turns into milliseconds
      // of the user's index held. The one wait left is git's answer on the ref.
      try {
        fsSync.closeSync(fsSync.openSync(lockFile, 'wx', 0o666));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
          return { ok: false, reason: `cannot lock the index: ${(error as Error).message}`, retryable: true };
        if (round < MAX_ROUNDS) continue;
        return { ok: false, reason: 'index.lock is held by another git process', retryable: true };
      }
      const lockedAt = performance.now();
      try {
        if (!sameFile(prepared.value.stamp, statOrNull(options.indexFile))) {
          // The user's git wrote the index after we copied it: prepare again from the new one.
          if (round < MAX_ROUNDS) continue;
          return { ok: false, reason: 'the index kept changing while committing', retryable: true };
        }
        // With index.lock held no checkout can complete, so a branch checked now stays checked out.
        if (!headIsOn(options.gitDir, options.branch))
          return { ok: false, reason: 'the branch was switched while committing', retryable: true };
        const { scratch, backup, changesIndex } = prepared.value;
        if (changesIndex) fsSync.renameSync(scratch, options.indexFile);
        const moved = await transaction.prepareAndCommit(options.newCommit, options.oldHead);
        if (!moved.ok) {
          // The ref stayed where it was: so must the index.
          if (changesIndex && backup !== null) fsSync.renameSync(backup, options.indexFile);
          else if (changesIndex) fsSync.rmSync(options.indexFile, { force: true });
          return { ok: false, reason: `HEAD moved while committing (${moved.message})`, retryable: true };
        }
        return { ok: true, value: options.newCommit };
      } finally {
        fsSync.rmSync(lockFile, { force: true });
        options.onLockHeld?.(performance.now() - lockedAt);
      }
    } finally {
      if (!('failed' in transaction)) await transaction.abort();
      await removeScratch(prepared.value);
    }
  }
}

interface PreparedIndex {
  /** The user's index as it was copied (null: there was none). */
  readonly stamp: BigIntStats | null;
  /** The new index, ready to be renamed into place. */
  readonly scratch: string;
  /** A hard link to the user's index as copied: what goes back if the ref cannot move. */
  readonly backup: string | null;
  /** False: the user staged their own version of the doc, which stays; only HEAD moves. */
  readonly changesIndex: boolean;
}

async function prepareIndex(options: LandCommitOptions): Promise<IndexLockResult<PreparedIndex>> {
  const base = path.join(options.gitDir, `ai-zen-index-${process.pid}-${randomBytes(4).toString('hex')}`);
  const scratch = base;
  let backup: string | null = `${base}.old`;
  const inScratch = { env: options.env, extraEnv: { GIT_INDEX_FILE: scratch } };
  let stamp: BigIntStats | null = null;
  try {
    try {
      // A link, not a copy: it keeps the very inode we compare against under the lock.
      await fs.link(options.indexFile, backup);
      stamp = await fs.stat(backup, { bigint: true });
      await fs.copyFile(backup, scratch);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      backup = null;
    }
    const prepared = { stamp, scratch, backup };
    // --error-unmatch: a doc not in the index is said on stderr, not by silence.
    const current = await spawnGit(options.cwd, ['ls-files', '--stage', '--error-unmatch', '-z', '--', options.entry.path], inScratch);
    // Exit 1 is that unmatched pathspec (git's other failures exit 128); the message may be translated.
    const notInIndex = !current.ok && current.exitCode === 1 && current.stdout === '';
    if (!current.ok && !notInIndex) return failed(prepared, `cannot read the index: ${current.message}`);
    const currentEntry = current.ok ? /^(\d{6}) ([0-9a-f]+) 0\t/.exec(current.stdout) : null;
    const inSync = (currentEntry ? `${currentEntry[1]} ${currentEntry[2]}` : null) === options.entryAtOldHead;
    if (inSync) {
      const { mode, blob, path: entryPath } = options.entry;
      const added = await spawnGit(options.cwd, ['update-index', '--add', '--cacheinfo', `${mode},${blob},${entryPath}`], inScratch);
      if (!added.ok) return failed(prepared, `cannot stage the document: ${added.message}`);
      // Durable before it can replace the user's index.
      const handle = await fs.open(scratch, constants.O_RDONLY);
      await handle.sync().finally(() => handle.close());
    }
    return { ok: true, value: { ...prepared, changesIndex: inSync } };
  } catch (error) {
    await removeScratch({ scratch, backup });
    return { ok: false, reason: `cannot prepare the index: ${(error as Error).message}`, retryable: true };
  }
}

async function failed(prepared: Pick<PreparedIndex, 'scratch' | 'backup'>, reason: string): Promise<IndexLockResult<never>> {
  await removeScratch(prepared);
  return { ok: false, reason, retryable: true };
}

async function removeScratch(prepared: Pick<PreparedIndex, 'scratch' | 'backup'> | undefined): Promise<void> {
  if (!prepared) return;
  const files = [prepared.scratch, `${prepared.scratch}.lock`, ...(prepared.backup ? [prepared.backup] : [])];
  await Promise.all(files.map((file) => fs.rm(file, { force: true })));
}

function statOrNull(file: string): BigIntStats | null {
  try {
    return fsSync.statSync(file, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** git replaces the index by renaming a new file over it: any write of it is a new inode or a new mtime. */
function sameFile(before: BigIntStats | null, now: BigIntStats | null): boolean {
  if (before === null || now === null) return before === now;
  return (
    before.ino === now.ino &&
    before.dev === now.dev &&
    before.size === now.size &&
    before.mtimeNs === now.mtimeNs &&
    before.ctimeNs === now.ctimeNs
  );
}

/**
 * HEAD read from its file, no git process under the lock. Only a symbolic HEAD naming another
 * branch refuses; a HEAD file git does not keep as text (the reftable format) leaves the check to
 * the compare-and-swap of the ref.
 */
function headIsOn(gitDir: string, branch: string): boolean {
  let text = '';
  try {
    text = fsSync.readFileSync(path.join(gitDir, 'HEAD'), 'utf8');
  } catch {
    // No HEAD file to read: the compare-and-swap decides.
  }
  const match = /^ref: (.+)\n?$/.exec(text);
  if (!match?.[1] || match[1] === 'refs/heads/.invalid') return true;
  return match[1].trim() === branch;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Waits (bounded) until no git holds the index lock and the index has rested for `quietMs`. */
export async function waitForQuietIndex(indexFile: string, quiet: QuietMoment = {}): Promise<void> {
  const quietMs = quiet.quietMs ?? 100;
  // Long enough that a burst of the user's git (a rebase, a script) is seldom interrupted; a commit
  // that waits that long is a commit of a busy repo, where a few seconds more are not noticed.
  const deadline = Date.now() + (quiet.maxWaitMs ?? 10_000);
  for (;;) {
    const [locked, index] = await Promise.all([
      fs.access(`${indexFile}.lock`).then(
        () => true,
        () => false,
      ),
      fs.stat(indexFile).catch(() => null),
    ]);
    const restedFor = index === null ? Infinity : Date.now() - index.mtimeMs;
    if ((!locked && restedFor >= quietMs) || Date.now() >= deadline) return;
    await sleep(Math.min(25, Math.max(5, quietMs - restedFor)));
  }
}
