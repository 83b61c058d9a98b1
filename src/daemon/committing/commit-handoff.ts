// Commits a handoff document ALONE (D3): the user's index, staged files and working tree stay
// exactly as they were. Refuses, with a reason and whether a retry can help, whenever a commit
// would be wrong: see commit-preflight.ts.
//
// Why plumbing and not `git commit --only -- <doc>` (measured on git 2.39):
// - `--only` rejects an untracked path ("pathspec did not match any file(s) known to git"), and a
//   new doc is always untracked; `git add -N` first would touch the user's index before we know
//   the commit will happen.
// - `git commit` holds the user's index.lock for the whole pre-commit hook (linters, tests), so
//   their own `git add` fails meanwhile; here the hook runs on a temporary index and the real
//   index is locked only for the rename of a prepared index and the ref update (commit-index-lock.ts).
// - `git commit` may start `gc --auto` in the background of a daemon.
// Hooks still apply: pre-commit, prepare-commit-msg and commit-msg can veto the commit with
// git's own semantics (temporary index in GIT_INDEX_FILE, as `git commit --only` gives them),
// and post-commit runs after it.
//
// Order: blob → temporary index (HEAD + doc) → tree → hooks (the tree is written again and
// checked only when a pre-commit hook ran) → commit object → the user's index with the doc staged,
// in a copy → lock the real index → it is unchanged? → compare-and-swap HEAD → rename the new index
// in → write HEAD → unlock. git runs as plain child processes (spawn-git.ts): simple-git's 50 ms
// wait after a silent git, a dozen times per commit, was most of the commit's time.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Env } from '../../paths.js';
import { gitEnvironment } from '../../probe/git-environment.js';
import type { GitRun } from '../../probe/run-git.js';
import { spawnGit } from '../../probe/spawn-git.js';
import { describeHookFailure, runHook, type HookName } from './commit-hooks.js';
import { landCommit, type QuietMoment } from './commit-index-lock.js';
import { preflight, refuse, type CommitRefusal, type CommitTarget } from './commit-preflight.js';
import { describeSigningFailure, SIGNING_TIMEOUT_MS, signingArgs } from './commit-signing.js';

export type CommitHandoffResult = { readonly committed: true; readonly commit: string } | CommitRefusal;

export interface CommitHandoffOptions {
  readonly root: string;
  /** Project-relative path of the handoff document. */
  readonly docPath: string;
  /** `handoff: <short id> (<executor>)`, chosen by the caller. */
  readonly message: string;
  readonly env?: Env;
  /** How long a hook may run before it is killed and the commit refused. */
  readonly hookTimeoutMs?: number;
  /** Aborted when the daemon stops: a hook still running is killed with its process group. */
  readonly signal?: AbortSignal;
  /**
   * The document's bytes as verified by the caller: these are committed, never a later read of
   * the file (which someone may have changed since). Default: the file as it is now.
   */
  readonly content?: Buffer;
  /** Refuse when the path is already tracked with other content (a handoff doc is only ever new). */
  readonly onlyNew?: boolean;
  readonly quiet?: QuietMoment;
  /** How long the user's index.lock was held (the benchmark's figure). */
  readonly onLockHeld?: (milliseconds: number) => void;
}

const optionsSchema = z.object({
  root: z.string().min(1),
  docPath: z.string().min(1),
  message: z.string().refine((message) => message.trim().length > 0, 'the commit message is empty'),
  hookTimeoutMs: z.number().int().positive().optional(),
});

export async function commitHandoff(options: CommitHandoffOptions): Promise<CommitHandoffResult> {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) return refuse(`invalid commit request: ${parsed.error.issues[0]?.message ?? 'bad options'}`, false);
  try {
    const target = await preflight(options.root, options.docPath, options.env);
    if ('committed' in target) return target;
    return await commitTarget(target, options);
  } catch (error) {
    return refuse(`committing the handoff document failed: ${error instanceof Error ? error.message : String(error)}`, true);
  }
}

async function commitTarget(target: CommitTarget, options: CommitHandoffOptions): Promise<CommitHandoffResult> {
  const git = (args: string[], extraEnv?: Env, input?: Buffer) =>
    spawnGit(target.topLevel, args, { env: options.env, extraEnv, ...(input ? { input } : {}) });
  const scratch = path.join(target.gitDir, `ai-zen-commit-${process.pid}-${randomBytes(4).toString('hex')}`);
  const tempIndex = `${scratch}.index`;
  const messageFile = `${scratch}.msg`;
  const withTempIndex = { GIT_INDEX_FILE: tempIndex };
  try {
    // Independent steps run side by side: each git process costs tens of ms on a busy machine.
    const [blob, readTree, atOldHead, signing] = await Promise.all([
      // The blob as `git add` would store it (clean filters and eol attributes of the path apply).
      options.content
        ? git(['hash-object', '-w', '--stdin', `--path=${target.docPath}`], undefined, options.content)
        : git(['hash-object', '-w', '--', target.docPath]),
      git(['read-tree', target.head], withTempIndex),
      git(['ls-tree', '-z', target.head, '--', target.docPath]),
      signingArgs(git),
    ]);
    if (!blob.ok) return refuse(`cannot store the document in git: ${blob.message}`, true);
    if (!readTree.ok) return refuse(`cannot read the HEAD tree: ${readTree.message}`, true);
    const blobId = blob.stdout.trim();
    const oldHeadEntry = atOldHead.ok ? /^(\d{6}) blob ([0-9a-f]+)\t/.exec(atOldHead.stdout) : null;
    if (options.onlyNew && oldHeadEntry && oldHeadEntry[2] !== blobId) {
      return refuse(`${target.docPath} is already tracked with other content; a handoff commit never changes a tracked file`, false);
    }
    const staged = await git(['update-index', '--add', '--cacheinfo', `100644,${blobId},${target.docPath}`], withTempIndex);
    if (!staged.ok) return refuse(`cannot stage the document: ${staged.message}`, true);

    const firstTree = await git(['write-tree'], withTempIndex);
    const headTree =
      target.headTree !== null ? { ok: true as const, stdout: target.headTree } : await git(['rev-parse', `${target.head}^{tree}`]);
    if (firstTree.ok && headTree.ok && firstTree.stdout.trim() === headTree.stdout.trim()) {
      return alreadyCommitted(target, git);
    }

    const hookEnv = gitEnvironment(options.env, withTempIndex);
    const hook = (name: HookName, args: string[] = []) =>
      runHook(name, {
        hooksDir: target.hooksDir,
        cwd: target.topLevel,
        env: hookEnv,
        args,
        timeoutMs: options.hookTimeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    const preCommit = await hook('pre-commit');
    if (preCommit.ran && !preCommit.ok) return refuse(describeHookFailure('pre-commit', preCommit), true);

    let treeId: string;
    let stagedEntry: { mode: string; blob: string };
    if (!preCommit.ran && firstTree.ok) {
      // No hook touched the temporary index: it is HEAD's tree plus the doc as staged above, and
      // that tree differs from HEAD's in the doc alone.
      treeId = firstTree.stdout.trim();
      stagedEntry = { mode: '100644', blob: blobId };
    } else {
      // The hook may have re-staged the doc (a formatter); commit what the temporary index holds,
      // and only if that is still the doc alone.
      const tree = await git(['write-tree'], withTempIndex);
      if (!tree.ok) return refuse(`cannot write the tree: ${tree.message}`, true);
      treeId = tree.stdout.trim();
      const changed = await git(['diff-tree', '-r', '--no-renames', '--name-only', '-z', target.head, treeId]);
      const changedPaths = changed.ok ? changed.stdout.split('\0').filter((entry) => entry.length > 0) : [];
      if (changedPaths.length !== 1 || changedPaths[0] !== target.docPath) {
        const what = changedPaths.length === 0 ? 'unstaged the document' : 'staged other files';
        return refuse(`the pre-commit hook ${what}; the handoff commit holds the document alone`, true);
      }
      const entry = await git(['ls-files', '--stage', '-z', '--', target.docPath], withTempIndex);
      const found = entry.ok ? /^(\d{6}) ([0-9a-f]+) 0\t/.exec(entry.stdout) : null;
      if (!found?.[1] || !found[2]) return refuse('cannot read the staged document back', true);
      stagedEntry = { mode: found[1], blob: found[2] };
    }

    await fs.writeFile(messageFile, `${options.message.trim()}\n`);
    const prepare = await hook('prepare-commit-msg', [messageFile, 'message']);
    if (prepare.ran && !prepare.ok) return refuse(describeHookFailure('prepare-commit-msg', prepare), true);
    const commitMessage = await hook('commit-msg', [messageFile]);
    if (commitMessage.ran && !commitMessage.ok) return refuse(describeHookFailure('commit-msg', commitMessage), true);
    const message = cleanupMessage(await fs.readFile(messageFile, 'utf8'));
    if (message.length === 0) return refuse('a commit hook left the commit message empty', true);
    await fs.writeFile(messageFile, message);

    const signTimeoutMs = options.hookTimeoutMs ?? SIGNING_TIMEOUT_MS;
    const commit = await spawnGit(target.topLevel, ['commit-tree', ...signing, treeId, '-p', target.head, '-F', messageFile], {
      env: options.env,
      ...(signing.length > 0 ? { timeoutMs: signTimeoutMs } : {}),
    });
    if (!commit.ok && signing.length > 0) return refuse(describeSigningFailure(commit.message, signTimeoutMs), true);
    if (!commit.ok) return refuse(`cannot create the commit: ${describeCommitTreeFailure(commit.message, commit.stderr)}`, true);
    const newCommit = commit.stdout.trim();

    const subject = message.split('\n')[0] ?? '';
    const landed = await landCommit({
      cwd: target.topLevel,
      gitDir: target.gitDir,
      indexFile: target.indexFile,
      branch: target.branch,
      oldHead: target.head,
      newCommit,
      reflogMessage: `commit (ai-zen handoff): ${subject}`,
      entry: { mode: stagedEntry.mode, blob: stagedEntry.blob, path: target.docPath },
      entryAtOldHead: oldHeadEntry ? `${oldHeadEntry[1]} ${oldHeadEntry[2]}` : null,
      env: options.env,
      ...(options.quiet ? { quiet: options.quiet } : {}),
      ...(options.onLockHeld ? { onLockHeld: options.onLockHeld } : {}),
    });
    if (!landed.ok) return refuse(landed.reason, landed.retryable);

    // As with git: the commit stands whatever post-commit says.
    await hook('post-commit').catch(() => undefined);
    return { committed: true, commit: newCommit };
  } finally {
    await Promise.all([tempIndex, `${tempIndex}.lock`, messageFile].map((file) => fs.rm(file, { force: true })));
  }
}

/** The doc at HEAD already has this content: report the commit that holds it. */
async function alreadyCommitted(target: CommitTarget, git: (args: string[]) => Promise<GitRun>): Promise<CommitHandoffResult> {
  const last = await git(['log', '-1', '--no-show-signature', '--format=%H', target.head, '--', target.docPath]);
  const commit = last.ok ? last.stdout.trim() : '';
  return commit.length > 0 ? { committed: true, commit } : refuse('the document is unchanged and no commit holds it', false);
}

/** git's `whitespace` cleanup, which `git commit -m` applies: no trailing spaces, no blank runs or edges. */
export function cleanupMessage(text: string): string {
  const lines = text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd());
  const collapsed: string[] = [];
  for (const line of lines) {
    if (line === '' && (collapsed.length === 0 || collapsed.at(-1) === '')) continue;
    collapsed.push(line);
  }
  while (collapsed.at(-1) === '') collapsed.pop();
  return collapsed.length === 0 ? '' : `${collapsed.join('\n')}\n`;
}

function describeCommitTreeFailure(message: string, stderr: string): string {
  if (/Please tell me who you are|Author identity unknown|empty ident/i.test(stderr)) {
    return 'no git identity is configured (user.name and user.email)';
  }
  return message;
}
