// Branch, commit, dirty files, upstream and operation of the repo holding `root`, from git
// itself (X2, D2). Two calls run side by side — status and log — and the git dir (for the
// operation markers) is found on disk, so the cost is about one `git status`.
// Paths are relative to the top of the repository (as porcelain v2 gives them), even when
// `root` is a folder below it. Every call runs with optional locks off; nothing here ever throws.
import type { Env } from '../paths.js';
import type { GitFacts, Known } from './facts.js';
import { findGitDir } from './find-git-dir.js';
import { detectOperation } from './git-operation.js';
import { parsePorcelainV2 } from './parse-status.js';
import { isNotARepository, runGit } from './run-git.js';

export interface CaptureGitFactsOptions {
  readonly env?: Env;
}

const STATUS_ARGS = [
  'status',
  '--porcelain=v2',
  '--branch',
  '-z',
  // The user's status.showUntrackedFiles=no would hide untracked files from the facts;
  // `normal` lists a wholly untracked folder once, so it stays cheap.
  '--untracked-files=normal',
  // Paths are all we report; rename detection only costs time.
  '--no-renames',
  '--ahead-behind',
];

// log.showSignature=true would put gpg output in front of the format.
const LOG_ARGS = ['log', '-1', '--no-show-signature', '--no-color', '--format=%H%x00%h%x00%s', 'HEAD', '--'];

export async function captureGitFacts(root: string, options: CaptureGitFactsOptions = {}): Promise<Known<GitFacts>> {
  try {
    const env = options.env;
    const [status, log, foundGitDir] = await Promise.all([
      runGit(root, STATUS_ARGS, { env }),
      runGit(root, LOG_ARGS, { env }),
      findGitDir(root).catch(() => null),
    ]);
    if (isNotARepository(status)) return { known: false, why: 'not a git repository' };
    if (!status.ok) return { known: false, why: `git status failed: ${status.message}` };

    const parsed = parsePorcelainV2(status.stdout);
    const gitDir = foundGitDir ?? (await askGitDir(root, env));
    if (gitDir === null) return { known: false, why: 'cannot locate the git dir' };
    const [operation, aheadHandoffCommits] = await Promise.all([
      detectOperation(gitDir),
      countHandoffCommitsAhead(root, parsed.ahead, env),
    ]);
    return {
      known: true,
      value: {
        branch: parsed.branch,
        head: readHead(parsed.oid, log.ok ? log.stdout : null),
        staged: parsed.staged,
        unstaged: parsed.unstaged,
        // ai-zen's own files (sessions, logs, the handoff documents) are not the user's work.
        untracked: parsed.untracked.filter((file) => !AI_ZEN_PATH.test(file)),
        conflicted: parsed.conflicted,
        upstream: parsed.upstream,
        ahead: parsed.ahead,
        ...(aheadHandoffCommits > 0 ? { aheadHandoffCommits } : {}),
        behind: parsed.behind,
        operation,
      },
    };
  } catch (error) {
    return { known: false, why: `git facts failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

const AI_ZEN_PATH = /(^|\/)\.ai-zen(\/|$)/;

/** Commits ahead of the upstream that touch nothing but `.ai-zen/handoffs/` (one more git call, only when ahead). */
async function countHandoffCommitsAhead(root: string, ahead: number | null, env: Env | undefined): Promise<number> {
  if (ahead === null || ahead === 0) return 0;
  const counted = await runGit(root, ['rev-list', '--count', '@{upstream}..HEAD', '--', ':/', ':(exclude).ai-zen/handoffs'], { env });
  const others = counted.ok ? Number.parseInt(counted.stdout.trim(), 10) : Number.NaN;
  return Number.isFinite(others) ? Math.max(0, ahead - others) : 0;
}

async function askGitDir(root: string, env: Env | undefined): Promise<string | null> {
  const asked = await runGit(root, ['rev-parse', '--absolute-git-dir'], { env });
  return asked.ok ? asked.stdout.trim() : null;
}

function readHead(oid: string | null, logOutput: string | null): GitFacts['head'] {
  if (oid === null) return null;
  const [sha, shortSha, subject] = (logOutput ?? '').replace(/\n$/, '').split('\0');
  if (sha === oid && shortSha) return { sha, shortSha, subject: subject ?? '' };
  // log failed, or a commit landed between the two calls: status's oid is what the dirty list describes.
  return { sha: oid, shortSha: oid.slice(0, 7), subject: '' };
}
