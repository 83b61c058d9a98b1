// Where handoff documents are committed — `daemon.commit` "branch" (the branch checked
// out, as before), "ref" (a side ref; the user's work tree, index, HEAD and branch untouched) or
// "off". Real daemons in real repos; the side ref is pushed to a real bare remote.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, messageLine, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';

const DEADLINE = { timeoutMs: 40_000 };
const run = promisify(execFile);

describe('handoff commits off the work branch', { timeout: 120_000 }, () => {
  let daemon: DaemonRepo | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
    daemon = undefined;
  });

  /** Two sessions cross their limit, one after the other; resolves once both documents have their commit outcome. */
  async function twoHandoffs(repo: DaemonRepo) {
    for (const n of [1, 2]) {
      const id = sessionId(n);
      await repo.writeSession(id, { maxContextTokens: 1000 });
      await repo.appendLines(id, messageLine('user', `Task ${n}: write the tests.`), usageLine(1310));
      await waitFor(async () => ((await repo.status()).handoffs.length >= n ? true : null), { ...DEADLINE, message: `handoff ${n}` });
    }
    return waitFor(
      async () => {
        const { handoffs } = await repo.status();
        return handoffs.length === 2 && handoffs.every((handoff) => handoff.state !== 'pending') ? handoffs : null;
      },
      { ...DEADLINE, message: 'both handoffs settled' },
    );
  }

  it('commit "ref": documents go to refs/heads/ai-zen/handoffs, one after the other; the work branch has no handoff commit, git status and the index are as they were; handoffs lists them; the ref pushes', async () => {
    // The side ref is a trusted repo's choice (or the user's): an untrusted one's is ignored.
    daemon = await makeDaemonRepo({ config: { daemon: { commit: 'ref' } }, trusted: true });
    const { repo, root } = daemon;
    await fs.writeFile(path.join(root, 'notes.txt'), 'staged by the user\n');
    await repo.git('add', 'notes.txt');
    await fs.appendFile(path.join(root, 'README.md'), 'an unstaged edit\n');
    const headBefore = (await repo.git('rev-parse', 'HEAD')).trim();
    const statusOf = () => repo.git('status', '--porcelain=v1', '--untracked-files=all');
    const indexOf = () => repo.git('ls-files', '--stage');
    const indexBefore = await indexOf();
    await daemon.start();
    const statusBefore = await statusOf();

    const handoffs = await twoHandoffs(daemon);
    expect(handoffs.map((handoff) => [handoff.state, handoff.ref])).toEqual([
      ['committed', 'refs/heads/ai-zen/handoffs'],
      ['committed', 'refs/heads/ai-zen/handoffs'],
    ]);
    // The work branch: not one handoff commit; HEAD, status and index as the user left them.
    expect((await repo.git('rev-parse', 'HEAD')).trim()).toBe(headBefore);
    expect((await repo.git('log', '--format=%s', 'main')).split('\n').filter((subject) => subject.startsWith('handoff:'))).toEqual([]);
    expect(await statusOf()).toBe(statusBefore);
    expect(await indexOf()).toBe(indexBefore);
    expect((await repo.git('diff', '--cached', '--name-only')).trim()).toBe('notes.txt');

    // The side ref: one commit per document, each on the previous tip, holding the documents only.
    const log = (await repo.git('log', '--format=%H %P|%s', 'ai-zen/handoffs')).trim().split('\n');
    expect(log.map((line) => line.split('|')[1])).toEqual(['handoff: 00000002 (offline)', 'handoff: 00000001 (offline)']);
    const [second, first] = log.map((line) => line.split('|')[0]!.trim().split(' '));
    expect(first).toEqual([handoffs[0]!.commit]);
    expect(second).toEqual([handoffs[1]!.commit, handoffs[0]!.commit]);
    expect((await repo.git('ls-tree', '-r', '--name-only', 'ai-zen/handoffs')).trim().split('\n')).toEqual(
      handoffs.map((handoff) => handoff.path).sort(),
    );
    // Each document's bytes are the ones in the work tree, where the successor reads it.
    for (const handoff of handoffs)
      expect(await repo.git('show', `ai-zen/handoffs:${handoff.path}`)).toBe(await fs.readFile(path.join(root, handoff.path), 'utf8'));

    // What a person sees.
    const listed = await daemon.daemon(['handoffs']);
    expect(listed.code).toBe(0);
    for (const handoff of handoffs) expect(listed.stdout).toContain(`committed ${handoff.commit!.slice(0, 7)} on ai-zen/handoffs`);
    expect((await daemon.daemon(['status'])).stdout).toContain('commit  auto-commit to ai-zen/handoffs');

    // Pushable as any branch.
    const remote = path.join(path.dirname(root), 'remote.git');
    await run('git', ['init', '--bare', '--quiet', remote], { env: { ...process.env, ...daemon.env } });
    await repo.git('remote', 'add', 'origin', remote);
    await repo.git('push', '--quiet', 'origin', 'ai-zen/handoffs');
    const pushed = await run('git', ['--git-dir', remote, 'rev-parse', 'ai-zen/handoffs'], { env: { ...process.env, ...daemon.env } });
    expect(pushed.stdout.trim()).toBe(handoffs[1]!.commit);

    // A restarted daemon knows both as committed, and commits nothing again.
    expect((await daemon.daemon(['stop'])).code).toBe(0);
    await daemon.start();
    const again = await waitFor(
      async () => {
        const { handoffs: listedAgain } = await daemon!.status();
        return listedAgain.length === 2 && listedAgain.every((handoff) => handoff.state === 'committed') ? listedAgain : null;
      },
      { ...DEADLINE, message: 'the handoffs known again' },
    );
    expect(again.map((handoff) => handoff.commit)).toEqual(handoffs.map((handoff) => handoff.commit));
    expect((await repo.git('rev-list', '--count', 'ai-zen/handoffs')).trim()).toBe('2');
  });

  it('commit "off": the documents are written and nothing is committed anywhere', async () => {
    daemon = await makeDaemonRepo({ config: { daemon: { commit: 'off' } } });
    const headBefore = (await daemon.repo.git('rev-parse', 'HEAD')).trim();
    await daemon.start();
    const handoffs = await twoHandoffs(daemon);
    expect(handoffs.map((handoff) => handoff.state)).toEqual(['off', 'off']);
    expect(handoffs[0]!.reason).toMatch(/daemon\.commit/);
    expect((await daemon.repo.git('rev-parse', 'HEAD')).trim()).toBe(headBefore);
    expect((await daemon.repo.git('for-each-ref', '--format=%(refname)', 'refs/heads/ai-zen')).trim()).toBe('');
    expect((await daemon.daemon(['status'])).stdout).toContain('commit  auto-commit off');
  });

  it('attack: a trusted repo whose config names the checked-out branch as the side ref cannot move it under the user', async () => {
    daemon = await makeDaemonRepo({ config: { daemon: { commit: 'ref', commitRef: 'refs/heads/main' } }, trusted: true });
    const headBefore = (await daemon.repo.git('rev-parse', 'HEAD')).trim();
    await daemon.start();
    const id = sessionId(3);
    await daemon.writeSession(id, { maxContextTokens: 1000 });
    await daemon.appendLines(id, usageLine(1310));
    const [handoff] = await waitFor(
      async () => {
        const { handoffs } = await daemon!.status();
        return handoffs[0]?.state === 'deferred' ? handoffs : null;
      },
      { ...DEADLINE, message: 'the refused commit' },
    );
    expect(handoff!.reason).toContain('refs/heads/main is checked out in');
    expect((await daemon.repo.git('rev-parse', 'HEAD')).trim()).toBe(headBefore);
    expect((await daemon.repo.git('status', '--porcelain=v1')).trim()).not.toMatch(/^ ?D /m);
  });
});
