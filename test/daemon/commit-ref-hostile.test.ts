// A cloned repo's committed `.ai-zen/config.json` once chose `{"daemon":{"commit":"ref","commitRef":…}}`
// and the unattended daemon moved the user's refs with it: a branch not checked out, a release tag,
// `refs/remotes/origin/main` (also through the `origin/HEAD` symref) and `refs/stash`. Now the side
// ref is a choice of the user's config or a trusted repo only, and whoever chooses it, the committer
// moves only a ref of ai-zen's own namespaces that is no symref and whose tip is a handoff commit.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { commitToRef } from '../../src/daemon/committing/commit-to-ref.js';
import { trustProject } from '../../src/config/trust.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, messageLine, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';

const run = promisify(execFile);
const DEADLINE = { timeoutMs: 40_000 };

/** The user's refs a hostile config names, the symref among them. */
const USER_REFS = ['refs/heads/release', 'refs/tags/v1.0', 'refs/remotes/origin/main', 'refs/remotes/origin/HEAD', 'refs/stash'];

/** The repo made to look cloned: a remote with main and origin/HEAD, a tag, a branch not checked out, a stash. */
async function asClone(daemon: DaemonRepo): Promise<void> {
  const { repo, root } = daemon;
  const upstream = path.join(path.dirname(root), 'upstream.git');
  await run('git', ['clone', '--bare', '--quiet', root, upstream], { env: { ...process.env, ...daemon.env } });
  await repo.git('remote', 'add', 'origin', upstream);
  await repo.git('fetch', '--quiet', 'origin');
  await repo.git('remote', 'set-head', 'origin', 'main');
  await repo.git('tag', '-a', 'v1.0', '-m', 'release 1.0');
  await repo.git('branch', 'release');
  await fs.appendFile(path.join(root, 'README.md'), 'work in progress\n');
  await repo.git('stash', '--quiet');
}

/** Every ref of the repo but the branch checked out (which a branch-mode handoff commit moves, as it should). */
async function refsBut(daemon: DaemonRepo, moving: string): Promise<string> {
  const listed = await daemon.repo.git('for-each-ref', '--format=%(refname) %(objectname) %(symref)');
  return listed
    .split('\n')
    .filter((line) => !line.startsWith(`${moving} `))
    .join('\n');
}

/** One session crosses its limit; resolves with the settled outcome of its document's commit. */
async function oneHandoff(daemon: DaemonRepo, n: number) {
  const id = sessionId(n);
  await daemon.writeSession(id, { maxContextTokens: 1000 });
  await daemon.appendLines(id, messageLine('user', `Task ${n}: write the tests.`), usageLine(1310));
  return waitFor(
    async () => {
      const handoff = (await daemon.status()).handoffs.find((entry) => entry.sessionId === id);
      return handoff && handoff.state !== 'pending' ? handoff : null;
    },
    { ...DEADLINE, message: `handoff ${n} settled` },
  );
}

async function commitConfig(daemon: DaemonRepo, commitRef: string): Promise<void> {
  await fs.mkdir(path.join(daemon.root, '.ai-zen'), { recursive: true });
  await fs.writeFile(path.join(daemon.root, '.ai-zen', 'config.json'), JSON.stringify({ daemon: { commit: 'ref', commitRef } }));
  await daemon.repo.git('add', '.ai-zen/config.json');
  await daemon.repo.git('commit', '--quiet', '-m', `config: commitRef ${commitRef}`);
}

describe('commit "ref" from a cloned repo’s config', { timeout: 240_000 }, () => {
  let daemon: DaemonRepo | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
    daemon = undefined;
  });

  it('an untrusted clone’s commit "ref" and commitRef are ignored (and said so): naming a branch, a tag, a remote ref, the origin/HEAD symref or refs/stash moves none of them', async () => {
    daemon = await makeDaemonRepo();
    await asClone(daemon);
    let n = 0;
    for (const ref of USER_REFS) {
      n += 1;
      await commitConfig(daemon, ref);
      const config = await loadConfig({ root: daemon.root, env: daemon.env });
      expect(config.daemon.commit, ref).toBe('branch');
      expect(config.ignored.join('\n')).toContain('daemon.commit, daemon.commitRef ignored: this repo is not trusted');
      const before = await refsBut(daemon, 'refs/heads/main');
      await daemon.start();
      const handoff = await oneHandoff(daemon, n);
      // Committed where an untrusted repo's handoffs always go: the branch checked out.
      expect(handoff.state, handoff.reason ?? undefined).toBe('committed');
      expect(handoff.ref ?? null).toBeNull();
      expect((await daemon.repo.git('log', '-1', '--format=%s', 'main')).trim()).toMatch(/^handoff: /);
      expect((await daemon.daemon(['stop'])).code).toBe(0);
      expect(await refsBut(daemon, 'refs/heads/main'), ref).toBe(before);
    }
  });

  it('a trusted repo naming the user’s refs: the handoff is not committed, with the reason in handoffs; no ref moves', async () => {
    daemon = await makeDaemonRepo();
    await asClone(daemon);
    await commitConfig(daemon, 'refs/tags/v1.0');
    await trustProject(daemon.root, daemon.env);
    const before = await daemon.repo.git('for-each-ref', '--format=%(refname) %(objectname)');
    await daemon.start();
    const handoff = await oneHandoff(daemon, 1);
    expect(handoff.state).toBe('deferred');
    expect(handoff.reason).toBe(
      "refs/tags/v1.0 is not a ref of ai-zen's own (refs/heads/ai-zen/ or refs/ai-zen/); handoffs never move your branches, tags, remotes or stash",
    );
    const listed = await daemon.daemon(['handoffs']);
    expect(listed.stdout).toContain("not committed: refs/tags/v1.0 is not a ref of ai-zen's own");
    expect(await daemon.repo.git('for-each-ref', '--format=%(refname) %(objectname)')).toBe(before);
  });

  it('whoever chooses it, the committer refuses each of the user’s refs, a symref in ai-zen’s namespace and one whose tip is not a handoff commit, and moves a ref of its own', async () => {
    daemon = await makeDaemonRepo();
    await asClone(daemon);
    const { repo, root } = daemon;
    const main = (await repo.git('rev-parse', 'main')).trim();
    await repo.git('symbolic-ref', 'refs/heads/ai-zen/linked', 'refs/heads/release');
    await repo.git('update-ref', 'refs/ai-zen/not-handoffs', main);
    const docPath = '.ai-zen/handoffs/20261204-101500-00000001.md';
    await fs.mkdir(path.join(root, '.ai-zen', 'handoffs'), { recursive: true });
    await fs.writeFile(path.join(root, docPath), '# Handoff\n');
    const commit = (ref: string) => commitToRef({ root, docPath, message: 'handoff: 00000001 (offline)', env: daemon!.env, ref });
    const before = await repo.git('for-each-ref', '--format=%(refname) %(objectname) %(symref)');

    const reasons: Record<string, string> = {};
    for (const ref of [...USER_REFS, 'refs/heads/ai-zen/linked', 'refs/ai-zen/not-handoffs']) {
      const result = await commit(ref);
      expect(result.committed, ref).toBe(false);
      if (!result.committed) reasons[ref] = result.reason;
    }
    for (const ref of USER_REFS)
      expect(reasons[ref]).toBe(
        `${ref} is not a ref of ai-zen's own (refs/heads/ai-zen/ or refs/ai-zen/); handoffs never move your branches, tags, remotes or stash`,
      );
    expect(reasons['refs/heads/ai-zen/linked']).toBe(
      'refs/heads/ai-zen/linked is a symbolic ref (to refs/heads/release); handoffs move no ref through a link',
    );
    expect(reasons['refs/ai-zen/not-handoffs']).toBe(
      `refs/ai-zen/not-handoffs exists and its tip ${main.slice(0, 7)} is not a handoff commit (it holds more than .ai-zen/handoffs/); not moving it`,
    );
    expect(await repo.git('for-each-ref', '--format=%(refname) %(objectname) %(symref)')).toBe(before);

    // A ref of its own: made, then moved on its own previous tip.
    const first = await commit('refs/ai-zen/handoffs');
    expect(first.committed).toBe(true);
    await fs.writeFile(path.join(root, '.ai-zen', 'handoffs', '20261204-101600-00000002.md'), '# Handoff 2\n');
    const second = await commitToRef({
      root,
      docPath: '.ai-zen/handoffs/20261204-101600-00000002.md',
      message: 'handoff: 00000002 (offline)',
      env: daemon.env,
      ref: 'refs/ai-zen/handoffs',
    });
    expect(second.committed).toBe(true);
    expect((await repo.git('rev-list', '--count', 'refs/ai-zen/handoffs')).trim()).toBe('2');
  });
});
