// The user's own git commands must not fail while the daemon commits handoffs. git fails
// at once, it does not wait, on a held index.lock; so the committer prepares everything before it
// takes the lock, holds it only for a rename and a ref update, and waits for a quiet moment of the
// user's git activity. Real git processes on both sides; the test counts, it does not time.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHandoffCommitter } from '../../src/daemon/committing/handoff-committer.js';
import { EventBus } from '../../src/events.js';
import { silentLogger } from '../../src/log/logger.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';
import { waitFor } from '../support/wait-for.js';

const quiet = silentLogger();
const DOCS = 60;
const USER_COMMANDS = 200;

function envOf(repo: TempRepo): NodeJS.ProcessEnv {
  return { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: path.join(repo.home, 'gitconfig'), GIT_TERMINAL_PROMPT: '0' };
}

/** One git command as the user types it: resolves with its failure message, or null. */
function userGit(repo: TempRepo, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd: repo.root, env: envOf(repo) }, (error, _stdout, stderr) =>
      resolve(error ? `git ${args.join(' ')}: ${stderr.trim() || error.message}` : null),
    );
  });
}

describe('the user works in git while handoffs are committed', { timeout: 600_000 }, () => {
  it(`${USER_COMMANDS} user git add / commit / checkout -b while ${DOCS} handoffs are committed: at most 1% fail, nothing of the user's is lost, every doc is committed`, async () => {
    await using repo = await makeTempRepo();
    const sessionId = 'abcd1234-0000-4000-8000-000000000000';
    const docs: { path: string; sha256: string }[] = [];
    await fs.mkdir(path.join(repo.root, '.ai-zen', 'handoffs'), { recursive: true });
    for (let index = 0; index < DOCS; index += 1) {
      const doc = `.ai-zen/handoffs/20261203-0100${String(index).padStart(2, '0')}-abcd1234.md`;
      const text = `# Handoff ${index}\n\n${'what was done and what is next. '.repeat(20)}\n`;
      await fs.writeFile(path.join(repo.root, doc), text);
      docs.push({ path: doc, sha256: createHash('sha256').update(text).digest('hex') });
    }

    const committer = createHandoffCommitter({ root: repo.root, enabled: true, events: new EventBus(), logger: quiet, env: envOf(repo) });
    const committed = () => committer.list().filter((record) => record.status.state === 'committed').length;
    for (const doc of docs) {
      committer.add({ path: doc.path, sessionId, executor: 'offline', mode: 'migrate', at: doc.path, sha256: doc.sha256 });
    }
    // The user starts once the daemon is at work.
    await waitFor(() => committed() > 0, { timeoutMs: 120_000, message: 'the first handoff commit' });

    const failures: string[] = [];
    const userFiles = new Map<string, { content: string; committed: boolean }>();
    for (let command = 0, round = 0; command < USER_COMMANDS; round += 1) {
      const file = `work/file-${round}.txt`;
      const content = `the user's work, round ${round}\n`;
      await fs.mkdir(path.join(repo.root, 'work'), { recursive: true });
      await fs.writeFile(path.join(repo.root, file), content);
      userFiles.set(file, { content, committed: false });
      const add = await userGit(repo, ['add', file]);
      command += 1;
      if (add) failures.push(add);
      if (command >= USER_COMMANDS) break;
      const commit = await userGit(repo, ['commit', '-q', '-m', `user round ${round}`, '--', file]);
      command += 1;
      if (commit) failures.push(commit);
      else userFiles.get(file)!.committed = true;
      if (command >= USER_COMMANDS) break;
      const branch = await userGit(repo, ['checkout', '-q', '-b', `user-${round}`]);
      command += 1;
      if (branch) failures.push(branch);
    }
    const committedDuringTheLoop = committed();

    // As the daemon's git watch does after a burst of git activity.
    committer.retry();
    await waitFor(() => committed() === DOCS, { timeoutMs: 300_000, intervalMs: 200, message: `all ${DOCS} docs committed` });
    await committer.close();

    expect(failures.length, failures.join('\n')).toBeLessThanOrEqual(USER_COMMANDS / 100);
    expect(committedDuringTheLoop).toBeGreaterThan(0);
    const inHead = new Set((await repo.git('ls-tree', '-r', '--name-only', 'HEAD')).split('\n').filter(Boolean));
    for (const doc of docs) expect(inHead.has(doc.path), doc.path).toBe(true);
    // Nothing of the user's is lost: every file is on disk as written, every commit of theirs is in HEAD.
    for (const [file, { content, committed: wasCommitted }] of userFiles) {
      expect(await fs.readFile(path.join(repo.root, file), 'utf8')).toBe(content);
      if (wasCommitted) expect(await repo.git('show', `HEAD:${file}`)).toBe(content);
    }
    const userCommits = (await repo.git('log', '--format=%s', 'HEAD')).split('\n').filter((subject) => subject.startsWith('user round '));
    expect(userCommits).toHaveLength([...userFiles.values()].filter((entry) => entry.committed).length);
    // No handoff doc is left staged as a deletion or an addition: the index agrees with HEAD on them.
    expect((await repo.git('status', '--porcelain=v1', '--', '.ai-zen')).trim()).toBe('');
  });
});
