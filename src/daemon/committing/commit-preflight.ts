// Everything that must hold before the handoff committer touches the repository, checked in
// the order a person would explain it. Each obstacle becomes a refusal with one clear reason.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { resolveInsideRoot } from '../../fs/confine.js';
import type { Env } from '../../paths.js';
import { detectOperation } from '../../probe/git-operation.js';
import { isNotARepository, type GitRun } from '../../probe/run-git.js';
import { spawnGit } from '../../probe/spawn-git.js';

export interface CommitRefusal {
  readonly committed: false;
  readonly reason: string;
  /**
   * true: a passing state of the repository stands in the way (a lock, an operation in
   * progress, a detached or unborn HEAD, a failing hook, HEAD moved): retry when the repo changes.
   * false: the request or the project layout is wrong; the same request will keep failing.
   */
  readonly retryable: boolean;
}

export interface CommitTarget {
  /** Real path of the work tree top (= the project root). */
  readonly topLevel: string;
  /** This work tree's git dir (per-worktree for linked worktrees). */
  readonly gitDir: string;
  readonly indexFile: string;
  readonly hooksDir: string;
  /** The commit HEAD points at now; the new commit's parent and the compare-and-swap value. */
  readonly head: string;
  /** HEAD's tree, when the combined rev-parse gave it (null: ask git). */
  readonly headTree: string | null;
  /** The branch HEAD is on (`refs/heads/…`). */
  readonly branch: string;
  /** The doc's path in the repository (forward slashes, relative to the top). */
  readonly docPath: string;
  readonly docAbsolute: string;
}

export function refuse(reason: string, retryable: boolean): CommitRefusal {
  return { committed: false, reason, retryable };
}

export async function preflight(root: string, docPath: string, env: Env | undefined): Promise<CommitTarget | CommitRefusal> {
  const doc = await resolveInsideRoot(root, docPath);
  if (!doc.ok) return refuse(`the handoff document is not inside the project: ${doc.reason}`, false);
  if (doc.relative === '' || doc.relative.split(path.sep).some((part) => part.toLowerCase() === '.git')) {
    return refuse(`${docPath} is not a document git can commit`, false);
  }
  const realRoot = await fs.realpath(root);
  const repoPath = doc.relative.split(path.sep).join('/');

  // One round of git processes (each spawn costs tens of ms on a busy machine): the paths, HEAD and
  // its tree in one rev-parse, beside the branch and the ignore check. The combined rev-parse fails
  // as a whole when HEAD is unborn or this is no repository; the step-by-step calls below then say which.
  const [combined, branch, ignored] = await Promise.all([
    spawnGit(
      realRoot,
      ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-path', 'index', '--git-path', 'hooks', 'HEAD^{commit}', 'HEAD^{tree}'],
      { env },
    ),
    spawnGit(realRoot, ['symbolic-ref', '--quiet', 'HEAD'], { env }),
    // Verbose: it names the matching pattern (check-ignore consults the index: a tracked doc matches none).
    spawnGit(realRoot, ['check-ignore', '--verbose', '--non-matching', '--', repoPath], { env }),
  ]);
  const lines = combined.ok ? combined.stdout.split('\n') : [];
  const known = lines.length >= 6 && /^[0-9a-f]{40,64}$/.test(lines[4] ?? '') && /^[0-9a-f]{40,64}$/.test(lines[5] ?? '');
  let topLevel: string, gitDir: string, indexFile: string, hooksDir: string;
  let head: GitRun;
  let headTree: string | null = null;
  if (known) {
    [topLevel = '', gitDir = '', indexFile = '', hooksDir = ''] = lines;
    head = { ok: true, stdout: lines[4] ?? '', stderr: '' };
    headTree = lines[5] ?? null;
  } else {
    const paths = await spawnGit(
      realRoot,
      ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-path', 'index', '--git-path', 'hooks'],
      { env },
    );
    if (isNotARepository(paths)) return refuse('the project is not a git repository', false);
    if (!paths.ok) return refuse(`cannot inspect the git repository: ${paths.message}`, false);
    [topLevel = '', gitDir = '', indexFile = '', hooksDir = ''] = paths.stdout.split('\n');
    head = await spawnGit(realRoot, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { env });
  }
  const realTop = await fs.realpath(topLevel).catch(() => topLevel);
  if (realTop !== realRoot) {
    // A plain folder inside some parent repository: the commit would land in the parent.
    return refuse(`the project folder is not the top of its git repository (${realTop} is); not committing into it`, false);
  }

  const operation = await detectOperation(gitDir);
  if (!head.ok) return refuse('the repository has no commits yet', true);
  // A path-limited commit succeeds mid-rebase and lands inside the user's operation.
  // Checked before the branch: a rebase detaches HEAD, and the rebase is what the user must finish.
  if (operation !== null) return refuse(`a ${operation} is in progress`, true);
  if (!branch.ok) return refuse('HEAD is detached; a handoff commit needs a branch', true);

  const absoluteIndex = path.resolve(realRoot, indexFile);
  if (await exists(`${absoluteIndex}.lock`)) return refuse('index.lock is held by another git process', true);

  const stats = await fs.lstat(doc.absolute).catch(() => null);
  if (stats === null) return refuse(`the handoff document ${docPath} does not exist`, false);
  if (!stats.isFile()) return refuse(`the handoff document ${docPath} is not a regular file`, false);

  // Ignored = matched by a pattern that is not a negation (`!x` un-ignores); `git add` would refuse it too.
  // The line is `<source>:<line>:<pattern>\t<path>`, or `::\t<path>` when nothing matched.
  const pattern = /^(.*?):(\d+):(.*)\t[^\t]*$/s.exec(ignored.stdout.split('\n')[0] ?? '')?.[3] ?? '';
  if (pattern !== '' && !pattern.startsWith('!')) return refuse(`the handoff document ${repoPath} is ignored by git (.gitignore)`, false);

  return {
    topLevel: realRoot,
    gitDir,
    indexFile: absoluteIndex,
    hooksDir: path.resolve(realRoot, hooksDir),
    head: head.stdout.trim(),
    headTree,
    branch: branch.stdout.trim(),
    docPath: repoPath,
    docAbsolute: doc.absolute,
  };
}

function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
