import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitHandoff, type CommitHandoffResult } from '../../src/daemon/committing/commit-handoff.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

const DOC = '.ai-zen/handoffs/20250102-030405-abcdef12.md';
const MESSAGE = 'handoff: abcdef12 (offline)';
const DOC_TEXT = '# Handoff\n\nThe state of things.\n';

function envOf(repo: TempRepo): NodeJS.ProcessEnv {
  return { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: path.join(repo.home, 'gitconfig') };
}

async function write(root: string, file: string, content: string, mode?: number): Promise<void> {
  await fs.mkdir(path.dirname(path.join(root, file)), { recursive: true });
  await fs.writeFile(path.join(root, file), content, mode === undefined ? undefined : { mode });
}

async function commitFile(repo: TempRepo, file: string, content: string, message: string): Promise<void> {
  await write(repo.root, file, content);
  await repo.git('add', '--', file);
  await repo.git('commit', '-q', '-m', message);
}

function commit(repo: TempRepo, root = repo.root): Promise<CommitHandoffResult> {
  return commitHandoff({ root, docPath: DOC, message: MESSAGE, env: envOf(repo) });
}

/** What "untouched" means: same HEAD, same index bytes, same status, the doc on disk as written. */
async function snapshot(repo: TempRepo, root = repo.root): Promise<unknown> {
  const gitDir = path.join(repo.root, '.git');
  const index = await fs.readFile(path.join(gitDir, 'index')).catch(() => null);
  return {
    head: await repo.git('rev-parse', '--verify', '--quiet', 'HEAD').catch(() => 'no commits'),
    index: index?.toString('base64') ?? null,
    status: await repo.git('status', '--porcelain=v1', '--untracked-files=all'),
    doc: await fs.readFile(path.join(root, DOC), 'utf8'),
  };
}

async function filesOf(repo: TempRepo, commitId: string): Promise<string[]> {
  return (await repo.git('show', '--name-only', '--format=', commitId)).split('\n').filter(Boolean);
}

async function expectCommitted(repo: TempRepo, result: CommitHandoffResult): Promise<string> {
  if (!result.committed) throw new Error(`not committed: ${result.reason}`);
  expect(await filesOf(repo, result.commit)).toEqual([DOC]);
  expect((await repo.git('log', '-1', '--format=%s')).trim()).toBe(MESSAGE);
  expect((await repo.git('rev-parse', 'HEAD')).trim()).toBe(result.commit);
  return result.commit;
}

async function expectRefusedUntouched(
  repo: TempRepo,
  attempt: () => Promise<CommitHandoffResult>,
  expected: { reason: RegExp; retryable: boolean },
  root = repo.root,
): Promise<void> {
  const before = await snapshot(repo, root);
  const result = await attempt();
  expect(result).toEqual({ committed: false, reason: expect.stringMatching(expected.reason), retryable: expected.retryable });
  expect(await snapshot(repo, root)).toEqual(before);
  expect((await fs.readdir(path.join(repo.root, '.git'))).filter((name) => name.startsWith('ai-zen-'))).toEqual([]);
}

describe('commitHandoff', () => {
  it('D3 commits the handoff document alone: a staged file stays staged, an unstaged change stays', async () => {
    await using repo = await makeTempRepo();
    await commitFile(repo, 'src/staged.ts', 'v1\n', 'add staged.ts');
    await commitFile(repo, 'src/unstaged.ts', 'v1\n', 'add unstaged.ts');
    const parent = (await repo.git('rev-parse', 'HEAD')).trim();
    await write(repo.root, 'src/staged.ts', 'v2 staged\n');
    await repo.git('add', 'src/staged.ts');
    await write(repo.root, 'src/staged.ts', 'v3 in the working tree\n');
    await write(repo.root, 'src/unstaged.ts', 'v2 unstaged\n');
    await write(repo.root, 'scratch.txt', 'untracked\n');
    await write(repo.root, DOC, DOC_TEXT);

    const result = await commit(repo);
    const commitId = await expectCommitted(repo, result);
    expect((await repo.git('rev-parse', `${commitId}^`)).trim()).toBe(parent);
    expect(await repo.git('show', `${commitId}:${DOC}`)).toBe(DOC_TEXT);

    expect(await repo.git('show', ':src/staged.ts')).toBe('v2 staged\n');
    expect(await fs.readFile(path.join(repo.root, 'src/staged.ts'), 'utf8')).toBe('v3 in the working tree\n');
    expect(await fs.readFile(path.join(repo.root, 'src/unstaged.ts'), 'utf8')).toBe('v2 unstaged\n');
    expect((await repo.git('status', '--porcelain=v1')).split('\n').filter(Boolean).sort()).toEqual(
      ['MM src/staged.ts', ' M src/unstaged.ts', '?? scratch.txt'].sort(),
    );
    expect((await repo.git('diff', '--cached', '--name-only')).trim()).toBe('src/staged.ts');
  });

  it('D3 a second call for the same document reports the commit that holds it', async () => {
    await using repo = await makeTempRepo();
    await write(repo.root, DOC, DOC_TEXT);
    const first = await expectCommitted(repo, await commit(repo));
    expect(await commit(repo)).toEqual({ committed: true, commit: first });
    expect((await repo.git('rev-list', '--count', 'HEAD')).trim()).toBe('2');
  });

  it('D3 a rewritten document (R17) is committed again, alone, and the status stays clean', async () => {
    await using repo = await makeTempRepo();
    await write(repo.root, DOC, DOC_TEXT);
    const first = await expectCommitted(repo, await commit(repo));
    await write(repo.root, DOC, `${DOC_TEXT}\nMore detail in section 3.\n`);
    const second = await expectCommitted(repo, await commit(repo));
    expect(second).not.toBe(first);
    expect(await repo.git('status', '--porcelain=v1')).toBe('');
    expect((await repo.git('reflog', '-1', '--format=%gs')).trim()).toBe(`commit (ai-zen handoff): ${MESSAGE}`);
  });

  it('D3 a version of the document the user staged themselves stays staged', async () => {
    await using repo = await makeTempRepo();
    await write(repo.root, DOC, DOC_TEXT);
    await expectCommitted(repo, await commit(repo));
    await write(repo.root, DOC, 'the user staged this\n');
    await repo.git('add', DOC);
    await write(repo.root, DOC, 'the agent rewrote this\n');

    const rewritten = await expectCommitted(repo, await commit(repo));
    expect(await repo.git('show', `${rewritten}:${DOC}`)).toBe('the agent rewrote this\n');
    expect(await repo.git('show', `:${DOC}`)).toBe('the user staged this\n');
  });

  it('D3 commits on the branch of a linked worktree, leaving the main work tree alone', async () => {
    await using repo = await makeTempRepo();
    const worktree = path.join(path.dirname(repo.root), 'worktree');
    await repo.git('worktree', 'add', '-q', '-b', 'side', worktree);
    await write(worktree, DOC, DOC_TEXT);
    const mainHead = (await repo.git('rev-parse', 'main')).trim();
    const result = await commit(repo, worktree);
    expect(result.committed).toBe(true);
    expect((await repo.git('rev-parse', 'main')).trim()).toBe(mainHead);
    expect((await repo.git('show', '--name-only', '--format=', 'side')).trim()).toBe(DOC);
    expect(await repo.git('-C', worktree, 'status', '--porcelain=v1')).toBe('');
  });

  it('D3 refuses with no commits yet, and commits once there is one', async () => {
    await using repo = await makeTempRepo({ commit: false });
    await write(repo.root, DOC, DOC_TEXT);
    await expectRefusedUntouched(repo, () => commit(repo), { reason: /no commits/, retryable: true });
    await commitFile(repo, 'README.md', 'hi\n', 'first');
    await expectCommitted(repo, await commit(repo));
  });

  it('D3 refuses on a detached HEAD, and commits back on a branch', async () => {
    await using repo = await makeTempRepo();
    await repo.git('checkout', '-q', '--detach');
    await write(repo.root, DOC, DOC_TEXT);
    await expectRefusedUntouched(repo, () => commit(repo), { reason: /detached/, retryable: true });
    await repo.git('checkout', '-q', 'main');
    await expectCommitted(repo, await commit(repo));
  });

  it('D3 refuses while a rebase is in progress, and commits after it is aborted', async () => {
    await using repo = await makeTempRepo();
    await commitFile(repo, 'shared.txt', 'base\n', 'base');
    await repo.git('checkout', '-q', '-b', 'topic');
    await commitFile(repo, 'shared.txt', 'topic\n', 'topic change');
    await repo.git('checkout', '-q', 'main');
    await commitFile(repo, 'shared.txt', 'main\n', 'main change');
    await repo.git('checkout', '-q', 'topic');
    await expect(repo.git('rebase', 'main')).rejects.toThrow();
    await write(repo.root, DOC, DOC_TEXT);

    await expectRefusedUntouched(repo, () => commit(repo), { reason: /rebase is in progress/, retryable: true });
    await repo.git('rebase', '--abort');
    await expectCommitted(repo, await commit(repo));
    expect((await repo.git('rev-parse', '--abbrev-ref', 'HEAD')).trim()).toBe('topic');
  });

  it('D3 refuses while index.lock is held, and commits once it is released', async () => {
    await using repo = await makeTempRepo();
    await write(repo.root, DOC, DOC_TEXT);
    const lock = path.join(repo.root, '.git', 'index.lock');
    await fs.writeFile(lock, '');
    await expectRefusedUntouched(repo, () => commit(repo), { reason: /index\.lock/, retryable: true });
    expect(await fs.readFile(lock, 'utf8')).toBe(''); // someone else's lock is never removed
    await fs.rm(lock);
    await expectCommitted(repo, await commit(repo));
  });

  it('D3 a failing pre-commit hook blocks the commit; once it passes, it ran on an index holding only the doc', async () => {
    await using repo = await makeTempRepo();
    await commitFile(repo, 'other.txt', 'v1\n', 'add other');
    await write(repo.root, 'other.txt', 'v2 staged\n');
    await repo.git('add', 'other.txt');
    await write(repo.root, DOC, DOC_TEXT);
    const hook = path.join(repo.root, '.git', 'hooks', 'pre-commit');
    await write(repo.root, '.git/hooks/pre-commit', '#!/bin/sh\necho "lint: 3 problems" >&2\nexit 1\n', 0o755);

    await expectRefusedUntouched(repo, () => commit(repo), {
      reason: /pre-commit hook failed with exit code 1: lint: 3 problems/,
      retryable: true,
    });

    const seen = path.join(path.dirname(repo.root), 'hook-saw.txt');
    await fs.writeFile(hook, `#!/bin/sh\ngit diff --cached --name-only > "${seen}"\n`, { mode: 0o755 });
    await expectCommitted(repo, await commit(repo));
    expect((await fs.readFile(seen, 'utf8')).trim()).toBe(DOC);
    expect(await repo.git('show', ':other.txt')).toBe('v2 staged\n');
  });

  it('D3 honours core.hooksPath and a rejecting commit-msg hook', async () => {
    await using repo = await makeTempRepo();
    await write(repo.root, DOC, DOC_TEXT);
    await repo.git('config', 'core.hooksPath', '.githooks');
    await write(
      repo.root,
      '.githooks/commit-msg',
      '#!/bin/sh\ngrep -q "^feat" "$1" || { echo "subject must start with feat"; exit 1; }\n',
      0o755,
    );
    await repo.git('add', '.githooks');
    await repo.git('commit', '-q', '--no-verify', '-m', 'add hooks');
    await expectRefusedUntouched(repo, () => commit(repo), {
      reason: /commit-msg hook failed.*subject must start with feat/,
      retryable: true,
    });
  });

  it('D3 refuses when a pre-commit hook stages other files', async () => {
    await using repo = await makeTempRepo();
    await write(repo.root, DOC, DOC_TEXT);
    await write(repo.root, 'sneaky.txt', 'x\n');
    await write(repo.root, '.git/hooks/pre-commit', '#!/bin/sh\ngit add sneaky.txt\n', 0o755);
    await expectRefusedUntouched(repo, () => commit(repo), { reason: /staged other files/, retryable: true });
  });

  it('D3 refuses when HEAD moves during the commit, leaving the index and no lock behind', async () => {
    await using repo = await makeTempRepo();
    await write(repo.root, DOC, DOC_TEXT);
    // The user commits while the hook runs: HEAD is no longer what the handoff commit was built on.
    await write(
      repo.root,
      '.git/hooks/pre-commit',
      '#!/bin/sh\nunset GIT_INDEX_FILE\ngit update-ref HEAD "$(git commit-tree HEAD^{tree} -p HEAD -m concurrent)"\n',
      0o755,
    );
    const indexBefore = await fs.readFile(path.join(repo.root, '.git', 'index'));
    const result = await commit(repo);
    expect(result).toEqual({ committed: false, reason: expect.stringMatching(/HEAD moved/), retryable: true });
    expect((await repo.git('log', '-1', '--format=%s')).trim()).toBe('concurrent');
    expect((await fs.readFile(path.join(repo.root, '.git', 'index'))).equals(indexBefore)).toBe(true);
    await expect(fs.access(path.join(repo.root, '.git', 'index.lock'))).rejects.toThrow();
    expect(await repo.git('status', '--porcelain=v1')).toBe('?? .ai-zen/\n');
  });

  it('D3 refuses when the branch is switched during the commit, even to one at the same commit', async () => {
    await using repo = await makeTempRepo();
    await write(repo.root, DOC, DOC_TEXT);
    await write(repo.root, '.git/hooks/pre-commit', '#!/bin/sh\ngit branch other\ngit symbolic-ref HEAD refs/heads/other\n', 0o755);
    const mainBefore = (await repo.git('rev-parse', 'main')).trim();
    const result = await commit(repo);
    expect(result).toEqual({ committed: false, reason: 'the branch was switched while committing', retryable: true });
    expect((await repo.git('rev-parse', 'main')).trim()).toBe(mainBefore);
    expect((await repo.git('rev-parse', 'other')).trim()).toBe(mainBefore);
  });

  it('D3 refuses a plain folder inside a parent repository, and commits once it is a repository itself', async () => {
    await using parent = await makeTempRepo();
    const project = path.join(parent.root, 'project');
    await write(project, DOC, DOC_TEXT);
    await expectRefusedUntouched(
      parent,
      () => commit(parent, project),
      { reason: /not the top of its git repository/, retryable: false },
      project,
    );

    const parentHead = (await parent.git('rev-parse', 'HEAD')).trim();
    await parent.git('-C', project, 'init', '-q', '-b', 'main');
    await parent.git('-C', project, 'config', 'user.name', 'ai-zen test');
    await parent.git('-C', project, 'config', 'user.email', 'test@ai-zen.invalid');
    await parent.git('-C', project, 'commit', '-q', '--allow-empty', '-m', 'project start');
    const result = await commit(parent, project);
    expect(result.committed).toBe(true);
    expect((await parent.git('rev-parse', 'HEAD')).trim()).toBe(parentHead);
    expect((await parent.git('-C', project, 'show', '--name-only', '--format=', 'HEAD')).trim()).toBe(DOC);
  });

  it('D3 refuses outside a git repository, and a document outside the project', async () => {
    await using folder = await makeTempRepo({ git: false });
    await write(folder.root, DOC, DOC_TEXT);
    expect(await commit(folder)).toEqual({ committed: false, reason: 'the project is not a git repository', retryable: false });
    expect(await fs.readFile(path.join(folder.root, DOC), 'utf8')).toBe(DOC_TEXT);

    await using repo = await makeTempRepo();
    await write(path.dirname(repo.root), 'outside.md', DOC_TEXT);
    await write(repo.root, DOC, DOC_TEXT);
    const before = await snapshot(repo);
    for (const docPath of ['../outside.md', path.join(path.dirname(repo.root), 'outside.md'), '.git/config']) {
      const result = await commitHandoff({ root: repo.root, docPath, message: MESSAGE, env: envOf(repo) });
      expect(result).toMatchObject({ committed: false, retryable: false });
    }
    expect(await snapshot(repo)).toEqual(before);
  });

  it('D3 refuses a missing or git-ignored document', async () => {
    await using repo = await makeTempRepo();
    expect(await commit(repo)).toMatchObject({ committed: false, reason: expect.stringMatching(/does not exist/), retryable: false });
    await commitFile(repo, '.gitignore', '.ai-zen/\n', 'ignore ai-zen');
    await write(repo.root, DOC, DOC_TEXT);
    await expectRefusedUntouched(repo, () => commit(repo), { reason: /ignored by git/, retryable: false });
  });

  it('HEAD never holds the doc while the index lacks it: read HEAD, then the index, throughout 12 commits: never a staged deletion', async () => {
    await using repo = await makeTempRepo();
    const docs = Array.from({ length: 12 }, (_, index) => `.ai-zen/handoffs/20250102-0304${String(index).padStart(2, '0')}-abcdef12.md`);
    for (const doc of docs) await write(repo.root, doc, `# Handoff ${doc}\n`);
    let committing = true;
    const deletions: string[] = [];
    // HEAD first, then the index compared with that commit: if HEAD already holds a doc, an index
    // read after it must hold it too. (`git status` reads the index first and HEAD after, so one
    // that spans a commit — ours or git's own `git commit` — can see a passing difference either way.)
    const reader = (async () => {
      let reads = 0;
      while (committing || reads < 5) {
        const head = (await repo.git('rev-parse', 'HEAD')).trim();
        const diff = await repo.git('diff-index', '--cached', '--name-status', '--no-renames', head);
        reads += 1;
        deletions.push(...diff.split('\n').filter((line) => line.startsWith('D')));
      }
      return reads;
    })();
    for (const doc of docs) {
      const result = await commitHandoff({ root: repo.root, docPath: doc, message: MESSAGE, env: envOf(repo) });
      expect(result).toMatchObject({ committed: true });
    }
    committing = false;
    expect(await reader).toBeGreaterThan(0);
    expect(deletions).toEqual([]);
    expect((await repo.git('status', '--porcelain=v1')).trim()).toBe('');
  });
});
