// `commit: "ref"`: a handoff document is committed to a side ref (by default
// `refs/heads/ai-zen/handoffs`), never to the branch the user works on. Only git's object store and
// that ref change: the commit is built in a temporary index from the ref's own tree plus the
// document, its parent is the ref's previous tip, and the ref moves by compare-and-swap — the
// user's work tree, index, HEAD and branch are untouched, and `git push origin ai-zen/handoffs`
// shares the documents. No commit hooks run: they guard what goes onto the user's branches, and
// they run in the user's work tree, which this commit does not touch.
//
// The document stays in the work tree, where the successor session reads it; so that `git status`
// does not show it as new, its folder is listed once in the repository's own `info/exclude` (never
// committed, unlike a .gitignore).
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { resolveInsideRoot } from '../../fs/confine.js';
import type { Env } from '../../paths.js';
import { isNotARepository } from '../../probe/run-git.js';
import { spawnGit } from '../../probe/spawn-git.js';
import type { CommitHandoffOptions, CommitHandoffResult } from './commit-handoff.js';
import { refuse } from './commit-preflight.js';
import { refRefusal } from './commit-ref-guard.js';
import { describeSigningFailure, SIGNING_TIMEOUT_MS, signingArgs } from './commit-signing.js';

export interface CommitToRefOptions extends CommitHandoffOptions {
  /** The full name of the side ref, e.g. `refs/heads/ai-zen/handoffs`. */
  readonly ref: string;
}

export async function commitToRef(options: CommitToRefOptions): Promise<CommitHandoffResult> {
  try {
    return await commitOnce(options);
  } catch (error) {
    return refuse(`committing the handoff document failed: ${error instanceof Error ? error.message : String(error)}`, true);
  }
}

async function commitOnce(options: CommitToRefOptions): Promise<CommitHandoffResult> {
  const { ref, env } = options;
  const doc = await resolveInsideRoot(options.root, options.docPath);
  if (!doc.ok) return refuse(`the handoff document is not inside the project: ${doc.reason}`, false);
  if (doc.relative === '' || doc.relative.split(path.sep).some((part) => part.toLowerCase() === '.git')) {
    return refuse(`${options.docPath} is not a document git can commit`, false);
  }
  const root = await fs.realpath(options.root);
  const docPath = doc.relative.split(path.sep).join('/');
  const git = (args: string[], extraEnv?: Env, input?: Buffer) => spawnGit(root, args, { env, extraEnv, ...(input ? { input } : {}) });

  const [paths, tip, checkedOut] = await Promise.all([
    git(['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-path', 'info/exclude']),
    git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]),
    // A ref checked out in some work tree is someone's branch: moving it under them would make
    // their work tree look as if every file but the documents had been deleted.
    git(['for-each-ref', '--format=%(worktreepath)', ref]),
  ]);
  if (isNotARepository(paths)) return refuse('the project is not a git repository', false);
  if (!paths.ok) return refuse(`cannot inspect the git repository: ${paths.message}`, false);
  const [topLevel = '', gitDir = '', exclude = ''] = paths.stdout.split('\n');
  if ((await fs.realpath(topLevel).catch(() => topLevel)) !== root) {
    return refuse(`the project folder is not the top of its git repository (${topLevel} is); not committing into it`, false);
  }
  if (checkedOut.ok && checkedOut.stdout.trim() !== '') {
    return refuse(`${ref} is checked out in ${checkedOut.stdout.trim().split('\n')[0]}; handoffs go to a ref nobody works on`, false);
  }
  const parent = tip.ok ? tip.stdout.trim() : null;
  const refused = await refRefusal(git, ref, parent, docPath.split('/').slice(0, -1));
  if (refused !== null) return refuse(refused, false);
  await excludeFolder(path.resolve(root, exclude), docPath.split('/').slice(0, -1).join('/'));

  const content = options.content ?? (await fs.readFile(doc.absolute));
  const scratch = path.join(gitDir, `ai-zen-commit-${process.pid}-${randomBytes(4).toString('hex')}`);
  const tempIndex = `${scratch}.index`;
  const withTempIndex = { GIT_INDEX_FILE: tempIndex };
  try {
    const [blob, readTree, atTip, signing] = await Promise.all([
      git(['hash-object', '-w', '--stdin', `--path=${docPath}`], undefined, content),
      git(parent ? ['read-tree', parent] : ['read-tree', '--empty'], withTempIndex),
      parent ? git(['ls-tree', '-z', parent, '--', docPath]) : Promise.resolve(null),
      signingArgs(git),
    ]);
    if (!blob.ok) return refuse(`cannot store the document in git: ${blob.message}`, true);
    if (!readTree.ok) return refuse(`cannot read the tree of ${ref}: ${readTree.message}`, true);
    const blobId = blob.stdout.trim();
    const held = atTip?.ok ? /^\d{6} blob ([0-9a-f]+)\t/.exec(atTip.stdout)?.[1] : undefined;
    if (held === blobId && parent) {
      // Committed before (a daemon restarted before it learnt of the commit): name that commit.
      const last = await git(['log', '-1', '--no-show-signature', '--format=%H', parent, '--', docPath]);
      if (last.ok && last.stdout.trim() !== '') return { committed: true, commit: last.stdout.trim() };
    }
    if (held !== undefined && options.onlyNew) {
      return refuse(`${docPath} is already on ${ref} with other content; a handoff commit never changes a document`, false);
    }
    const staged = await git(['update-index', '--add', '--cacheinfo', `100644,${blobId},${docPath}`], withTempIndex);
    if (!staged.ok) return refuse(`cannot stage the document: ${staged.message}`, true);
    const tree = await git(['write-tree'], withTempIndex);
    if (!tree.ok) return refuse(`cannot write the tree: ${tree.message}`, true);
    const signTimeoutMs = options.hookTimeoutMs ?? SIGNING_TIMEOUT_MS;
    const commit = await spawnGit(
      root,
      ['commit-tree', ...signing, tree.stdout.trim(), ...(parent ? ['-p', parent] : []), '-m', options.message.trim()],
      {
        env,
        ...(signing.length > 0 ? { timeoutMs: signTimeoutMs } : {}),
      },
    );
    if (!commit.ok && signing.length > 0) return refuse(describeSigningFailure(commit.message, signTimeoutMs), true);
    if (!commit.ok) return refuse(`cannot create the commit: ${commit.message}`, true);
    const newCommit = commit.stdout.trim();
    // Compare-and-swap: another daemon of this repository may have moved the ref meanwhile ('' = must not exist yet).
    // --no-deref: a symbolic ref made since the check is replaced, never followed to the ref it names.
    const moved = await git([
      'update-ref',
      '--no-deref',
      '-m',
      `commit (ai-zen handoff): ${options.message.trim()}`,
      ref,
      newCommit,
      parent ?? '',
    ]);
    if (!moved.ok) return refuse(`${ref} moved while the handoff was committed; trying again (${moved.message})`, true);
    return { committed: true, commit: newCommit };
  } finally {
    await Promise.all([tempIndex, `${tempIndex}.lock`].map((file) => fs.rm(file, { force: true })));
  }
}

/**
 * Keeps the handoff folder (project-relative) out of `git status` from the daemon's start on,
 * before any document is written there; the commit does it again, in case it was removed.
 */
export async function keepHandoffsOutOfStatus(root: string, folder: string, env?: Env): Promise<void> {
  const exclude = await spawnGit(root, ['rev-parse', '--git-path', 'info/exclude'], { env });
  if (exclude.ok) await excludeFolder(path.resolve(root, exclude.stdout.trim()), folder.split(path.sep).join('/'));
}

/** Lists the folder in `info/exclude` once, so `git status` stays as the user left it. */
async function excludeFolder(excludeFile: string, folder: string): Promise<void> {
  if (folder === '') return;
  const line = `/${folder}/`;
  const present = await fs.readFile(excludeFile, 'utf8').catch(() => '');
  if (present.split('\n').some((entry) => entry.trim() === line)) return;
  await fs.mkdir(path.dirname(excludeFile), { recursive: true });
  const separator = present === '' || present.endsWith('\n') ? '' : '\n';
  await fs.appendFile(excludeFile, `${separator}# ai-zen: handoff documents are committed to a side ref (daemon.commit "ref")\n${line}\n`);
}
