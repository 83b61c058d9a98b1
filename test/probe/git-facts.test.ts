import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GitFacts } from '../../src/probe/facts.js';
import { findGitDir } from '../../src/probe/find-git-dir.js';
import { captureGitFacts } from '../../src/probe/git-facts.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

/** The same isolated git config the temp repo's own git calls use. */
function envOf(repo: TempRepo): NodeJS.ProcessEnv {
  return { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: path.join(repo.home, 'gitconfig') };
}

async function knownFacts(repo: TempRepo, root = repo.root): Promise<GitFacts> {
  const facts = await captureGitFacts(root, { env: envOf(repo) });
  if (!facts.known) throw new Error(`git facts unknown: ${facts.why}`);
  return facts.value;
}

async function write(repo: TempRepo, file: string, content: string): Promise<void> {
  await fs.mkdir(path.dirname(path.join(repo.root, file)), { recursive: true });
  await fs.writeFile(path.join(repo.root, file), content);
}

async function commitFile(repo: TempRepo, file: string, content: string, message: string): Promise<void> {
  await write(repo, file, content);
  await repo.git('add', '--', file);
  await repo.git('commit', '-q', '-m', message);
}

describe('captureGitFacts', () => {
  it('D2 X2 captures branch, commit, and staged, unstaged and untracked files', async () => {
    await using repo = await makeTempRepo();
    await repo.git('checkout', '-q', '-b', 'feature/x');
    await commitFile(repo, 'src/app.ts', 'one\n', 'add the app');
    await commitFile(repo, 'notes.md', 'one\n', 'add notes');
    await write(repo, 'src/app.ts', 'two\n');
    await repo.git('add', 'src/app.ts');
    await write(repo, 'notes.md', 'two\n');
    await write(repo, 'with space.txt', 'new\n');

    const facts = await knownFacts(repo);
    const head = (await repo.git('rev-parse', 'HEAD')).trim();
    expect(facts.branch).toBe('feature/x');
    expect(facts.head).toEqual({ sha: head, shortSha: expect.any(String), subject: 'add notes' });
    expect(head.startsWith(facts.head?.shortSha ?? 'none')).toBe(true);
    expect(facts.staged).toEqual(['src/app.ts']);
    expect(facts.unstaged).toEqual(['notes.md']);
    expect(facts.untracked).toEqual(['with space.txt']);
    expect(facts.upstream).toBeNull();
    expect(facts.ahead).toBeNull();
    expect(facts.operation).toBeNull();
  });

  it('D2 a file both staged and changed again is listed as staged and unstaged', async () => {
    await using repo = await makeTempRepo();
    await write(repo, 'README.md', 'staged\n');
    await repo.git('add', 'README.md');
    await write(repo, 'README.md', 'changed again\n');
    const facts = await knownFacts(repo);
    expect(facts.staged).toEqual(['README.md']);
    expect(facts.unstaged).toEqual(['README.md']);
  });

  it('D2 detached HEAD has no branch but a commit', async () => {
    await using repo = await makeTempRepo();
    await commitFile(repo, 'a.txt', 'a\n', 'second commit');
    await repo.git('checkout', '-q', '--detach', 'HEAD~1');
    const facts = await knownFacts(repo);
    expect(facts.branch).toBeNull();
    expect(facts.head?.subject).toBe('initial commit');
    expect(facts.head?.sha).toBe((await repo.git('rev-parse', 'HEAD')).trim());
  });

  it('D2 a repo without commits has a branch and no head', async () => {
    await using repo = await makeTempRepo({ commit: false });
    await write(repo, 'draft.txt', 'x\n');
    const facts = await knownFacts(repo);
    expect(facts.branch).toBe('main');
    expect(facts.head).toBeNull();
    expect(facts.untracked).toEqual(['draft.txt']);
  });

  it('X2 outside a git repository the facts are unknown with the reason, never an exception', async () => {
    await using folder = await makeTempRepo({ git: false });
    await expect(captureGitFacts(folder.root, { env: envOf(folder) })).resolves.toEqual({
      known: false,
      why: 'not a git repository',
    });
    const missing = await captureGitFacts(path.join(folder.root, 'does-not-exist'));
    expect(missing.known).toBe(false);
  });

  it('D2 counts ahead and behind against a local upstream', async () => {
    await using repo = await makeTempRepo();
    await repo.git('checkout', '-q', '-b', 'topic');
    await repo.git('branch', '-q', '--set-upstream-to=main');
    await commitFile(repo, 'topic-1.txt', '1\n', 'topic 1');
    await commitFile(repo, 'topic-2.txt', '2\n', 'topic 2');
    await repo.git('checkout', '-q', 'main');
    await commitFile(repo, 'main-1.txt', '1\n', 'main 1');
    await repo.git('checkout', '-q', 'topic');

    const facts = await knownFacts(repo);
    expect(facts.upstream).toBe('main');
    expect(facts.ahead).toBe(2);
    expect(facts.behind).toBe(1);
  });

  it('D2 a rebase stopped on a conflict is reported with the conflicted file', async () => {
    await using repo = await makeTempRepo();
    await createConflict(repo);
    await expect(repo.git('rebase', 'main')).rejects.toThrow();
    const facts = await knownFacts(repo);
    expect(facts.operation).toBe('rebase');
    expect(facts.branch).toBeNull(); // git detaches HEAD while rebasing
    expect(facts.conflicted).toEqual(['shared.txt']);
  });

  it('D2 a merge and a cherry-pick in progress are reported', async () => {
    await using repo = await makeTempRepo();
    await createConflict(repo);
    await expect(repo.git('merge', '-q', 'main')).rejects.toThrow();
    expect((await knownFacts(repo)).operation).toBe('merge');
    await repo.git('merge', '--abort');
    await expect(repo.git('cherry-pick', 'main')).rejects.toThrow();
    expect((await knownFacts(repo)).operation).toBe('cherry-pick');
    await repo.git('cherry-pick', '--abort');
    expect((await knownFacts(repo)).operation).toBeNull();
  });

  it('D2 reads the operation of a linked worktree from its own git dir', async () => {
    await using repo = await makeTempRepo();
    await createConflict(repo);
    await repo.git('checkout', '-q', 'main');
    const worktree = path.join(path.dirname(repo.root), 'worktree');
    await repo.git('worktree', 'add', '-q', worktree, 'topic');
    const inWorktree = async (...args: string[]): Promise<void> => {
      await repo.git('-C', worktree, ...args);
    };
    await expect(inWorktree('merge', '-q', 'main')).rejects.toThrow();

    // The worktree's .git is a `gitdir:` file; found on disk as git itself would.
    expect(await findGitDir(path.join(worktree))).toBe((await repo.git('-C', worktree, 'rev-parse', '--absolute-git-dir')).trim());
    expect(await findGitDir(path.join(repo.root, 'missing', 'deeper'))).toBe(path.join(repo.root, '.git'));
    expect((await knownFacts(repo, worktree)).operation).toBe('merge');
    expect((await knownFacts(repo, worktree)).branch).toBe('topic');
    expect((await knownFacts(repo)).operation).toBeNull();
  });

  it('D2 never writes the index: optional locks are off', async () => {
    await using repo = await makeTempRepo();
    // A tracked file whose stat no longer matches the index: a plain `git status` refreshes
    // the index and rewrites it under index.lock.
    const readme = path.join(repo.root, 'README.md');
    const past = new Date(Date.now() - 3_600_000);
    await fs.utimes(readme, past, past);
    const indexPath = path.join(repo.root, '.git', 'index');
    const before = await fs.readFile(indexPath);

    await knownFacts(repo);
    expect((await fs.readFile(indexPath)).equals(before)).toBe(true);

    await repo.git('status', '--porcelain=v2'); // the same situation without the flag does write
    expect((await fs.readFile(indexPath)).equals(before)).toBe(false);
  });

  it('X2 ignores GIT_DIR and GIT_INDEX_FILE inherited from a git hook', async () => {
    await using repo = await makeTempRepo();
    await using other = await makeTempRepo();
    await write(repo, 'mine.txt', 'x\n');
    const facts = await captureGitFacts(repo.root, {
      env: { ...envOf(repo), GIT_DIR: path.join(other.root, '.git'), GIT_INDEX_FILE: path.join(other.root, '.git', 'index') },
    });
    expect(facts.known && facts.value.untracked).toEqual(['mine.txt']);
  });
});

/** `topic` and `main` both change line 1 of shared.txt; HEAD is `topic`. */
async function createConflict(repo: TempRepo): Promise<void> {
  await commitFile(repo, 'shared.txt', 'base\n', 'base');
  await repo.git('checkout', '-q', '-b', 'topic');
  await commitFile(repo, 'shared.txt', 'topic\n', 'topic change');
  await repo.git('checkout', '-q', 'main');
  await commitFile(repo, 'shared.txt', 'main\n', 'main change');
  await repo.git('checkout', '-q', 'topic');
}
