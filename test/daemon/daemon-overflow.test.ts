// D1–D3, a session crossing its limit, seen by a real daemon in a real repo. Unowned →
// the daemon migrates it (offline: no model configured, X1) and commits the doc alone; owned by a
// live ai-zen process → left to its owner, still announced; overflow announced once per crossing.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../src/events.js';
import { SessionsReply } from '../../src/daemon/side-channels/status-schema.js';
import { waitFor } from '../support/wait-for.js';
import {
  handoffDocs,
  makeDaemonRepo,
  makeFifo,
  messageLine,
  sealedHandoffLine,
  sessionId,
  usageLine,
  type DaemonRepo,
} from './daemon-harness.js';
import { startSessionOwner, type SessionOwner } from './session-owner.js';

const DEADLINE = { timeoutMs: 30_000 };

describe('D1 D3 an unowned session that crosses its limit is migrated by the daemon and its doc committed alone', {
  timeout: 60_000,
}, () => {
  let daemon: DaemonRepo;
  beforeEach(async () => {
    daemon = await makeDaemonRepo();
  });
  afterEach(async () => {
    await daemon.cleanup();
  });

  it('D1 D3 raw v1 lines from another agent → a handoff doc (offline) and a commit holding only it; the staged file stays staged', async () => {
    const { repo, root } = daemon;
    await fs.writeFile(path.join(root, 'notes.txt'), 'staged by the user\n');
    await repo.git('add', 'notes.txt');
    await fs.appendFile(path.join(root, 'README.md'), 'an unstaged edit\n');
    const headBefore = (await repo.git('rev-parse', 'HEAD')).trim();
    await daemon.start();

    const id = sessionId(1);
    const file = await daemon.writeSession(id, { maxContextTokens: 1000 });
    await daemon.appendLines(id, usageLine(800));
    await daemon.appendLines(id, messageLine('user', 'Now write the tests.'), usageLine(1310));

    const [doc] = await waitFor(async () => ((await handoffDocs(root)).length > 0 ? handoffDocs(root) : null), {
      ...DEADLINE,
      message: 'a handoff document',
    });
    expect(doc).toMatch(/^\.ai-zen\/handoffs\/\d{8}-\d{6}-00000001\.md$/);
    const subject = await waitFor(
      async () => {
        const line = (await repo.git('log', '-1', '--format=%s')).trim();
        return line.startsWith('handoff:') ? line : null;
      },
      { ...DEADLINE, message: 'the handoff commit' },
    );
    expect(subject).toBe('handoff: 00000001 (offline)');
    // The commit holds the doc and nothing else, on top of the user's HEAD.
    expect((await repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(doc);
    expect((await repo.git('rev-parse', 'HEAD~1')).trim()).toBe(headBefore);
    // The user's index and working tree are as they were. Waited for, not read once: the
    // daemon's commit is its own process's business, and the test must not race it.
    const staged = await waitFor(
      async () => {
        const names = (await repo.git('diff', '--cached', '--name-only')).trim();
        return names === 'notes.txt' ? names : null;
      },
      { ...DEADLINE, message: 'only notes.txt staged' },
    );
    expect(staged).toBe('notes.txt');
    expect((await repo.git('diff', '--name-only')).trim()).toBe('README.md');

    // X2: the 📊 section carries the daemon's facts, not a model's memory.
    const text = await fs.readFile(path.join(root, doc!), 'utf8');
    expect(text).toContain('`main`');
    expect(text).toContain(headBefore.slice(0, 7));
    expect(text).toContain('notes.txt');

    // The old session is closed with a migrated line; its successor starts from the doc.
    const lines = (await fs.readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.at(-2)).toMatchObject({ type: 'handoff', path: doc, executor: 'offline', mode: 'migrate' });
    expect(lines.at(-1)).toMatchObject({ type: 'migrated', path: doc });
    const successor = (lines.at(-1) as { newId: string }).newId;

    const status = await waitFor(
      async () => {
        const current = await daemon.status();
        return current.handoffs[0]?.state === 'committed' && current.sessions.some((session) => session.id === successor) ? current : null;
      },
      { ...DEADLINE, message: 'status to show the commit and the new session' },
    );
    const head = (await repo.git('rev-parse', 'HEAD')).trim();
    expect(status.handoffs).toEqual([
      expect.objectContaining({ path: doc, sessionId: id, executor: 'offline', state: 'committed', commit: head, reason: null }),
    ]);
    expect(status.sessions).toEqual([expect.objectContaining({ id: successor, closed: false, overflowed: false, owner: 'none' })]);
    expect(status.closedSessions).toBe(1);
  });

  it('D3 a handoff line written by another process announces the doc (with its cost) and commits it alone', async () => {
    await daemon.start();
    const events: AnyEvent[] = [];
    await (await daemon.connect()).subscribe((event) => events.push(event));
    const id = sessionId(6);
    await daemon.writeSession(id, { maxContextTokens: 100_000 });
    const doc = '.ai-zen/handoffs/20261202-120000-00000006.md';
    const text = `# Handoff\n\n${'written by the owner of the session. '.repeat(20)}\n`;
    const cost = { requests: 2, prompt_tokens: 5000, completion_tokens: 700 };
    // T1: the writer records the sha256 of the document it sealed, as ai-zen's pipeline does.
    await daemon.appendLines(id, await sealedHandoffLine(daemon.root, doc, text, { cost, redactions: 0 }));
    await waitFor(() => events.some((event) => event.name === 'handoff.committed'), { ...DEADLINE, message: 'the commit event' });
    expect(events.find((event) => event.name === 'handoff.written')?.payload).toEqual({
      sessionId: id,
      mode: 'handoff',
      path: doc,
      absolutePath: path.join(daemon.root, doc),
      executor: 'self',
      cost,
    });
    expect((await daemon.repo.git('log', '-1', '--format=%s')).trim()).toBe('handoff: 00000006 (self)');
    expect((await daemon.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(doc);

    // A restarted daemon finds the doc committed already: it says so, and commits nothing more.
    const head = (await daemon.repo.git('rev-parse', 'HEAD')).trim();
    expect((await daemon.daemon(['stop'])).code).toBe(0);
    await daemon.start();
    const again = await waitFor(async () => (await daemon.status()).handoffs[0], {
      ...DEADLINE,
      message: 'the doc in status after a restart',
    });
    expect(again).toMatchObject({ path: doc, state: 'committed', commit: head, attempts: 0 });
    expect((await daemon.repo.git('rev-parse', 'HEAD')).trim()).toBe(head);
  });

  it('D1 D3 a session begun once `start` returned is news, even while the daemon still starts: its handoff is announced', async () => {
    // Held after its socket answers and before it reads a transcript (start-gate.ts): CI's loaded
    // machines left this moment open by chance, and the session was taken for history then.
    const gate = path.join(path.dirname(daemon.root), 'listening-gate');
    await makeFifo(gate);
    const held = await makeDaemonRepo({ env: { AI_ZEN_TEST_LISTENING_GATE: gate } });
    try {
      await held.start();
      const events: AnyEvent[] = [];
      await (await held.connect()).subscribe((event) => events.push(event));
      const id = sessionId(8);
      await held.writeSession(id, { maxContextTokens: 100_000 });
      const doc = '.ai-zen/handoffs/20261202-120000-00000008.md';
      const text = `# Handoff\n\n${'written while the daemon started. '.repeat(20)}\n`;
      await held.appendLines(id, await sealedHandoffLine(held.root, doc, text));
      await fs.writeFile(gate, 'go');
      await waitFor(() => events.some((event) => event.name === 'handoff.committed'), { ...DEADLINE, message: 'the commit event' });
      expect(events.find((event) => event.name === 'handoff.written')?.payload).toMatchObject({ sessionId: id, path: doc });
      expect((await held.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(doc);
    } finally {
      await held.cleanup();
    }
  });

  it('D3 two handoff lines that arrive in one write are both announced and each doc is committed alone', async () => {
    await daemon.start();
    const events: AnyEvent[] = [];
    await (await daemon.connect()).subscribe((event) => events.push(event));
    const id = sessionId(7);
    await daemon.writeSession(id, { maxContextTokens: 100_000 });
    const docs = ['.ai-zen/handoffs/20261202-120000-00000007.md', '.ai-zen/handoffs/20261202-120000-00000007-2.md'];
    const at = new Date().toISOString();
    const lines = await Promise.all(
      docs.map((doc) => sealedHandoffLine(daemon.root, doc, `# Handoff\n\n${`${doc} `.repeat(20)}\n`, { at })),
    );
    await daemon.appendLines(id, ...lines);

    await waitFor(() => events.filter((event) => event.name === 'handoff.committed').length === 2, {
      ...DEADLINE,
      message: 'two commit events',
    });
    expect(events.filter((event) => event.name === 'handoff.written').map((event) => event.payload.path)).toEqual(docs);
    const committed = (await daemon.repo.git('log', '-2', '--format=', '--name-only')).split('\n').filter(Boolean).sort();
    expect(committed).toEqual([...docs].sort());
  });

  it('D1 migrating an older session nobody has open leaves --continue on the latest session', async () => {
    await daemon.start();
    const latest = sessionId(4);
    const older = sessionId(5);
    await daemon.writeSession(latest, { maxContextTokens: 1000 });
    await daemon.writeSession(older, { maxContextTokens: 1000 });
    const pointer = path.join(daemon.root, '.ai-zen', 'latest-session.json');
    await fs.writeFile(pointer, `${JSON.stringify({ id: latest, previousId: null })}\n`);
    await daemon.appendLines(older, usageLine(1500));
    await waitFor(async () => (await daemon.status()).closedSessions === 1, { ...DEADLINE, message: 'the older session to be migrated' });
    expect(JSON.parse(await fs.readFile(pointer, 'utf8'))).toEqual({ id: latest, previousId: null });
  });

  it('D3 a rebase in progress defers the commit, status says why, and once it is over the doc is committed', async () => {
    const { repo } = daemon;
    const gitDir = (await repo.git('rev-parse', '--absolute-git-dir')).trim();
    await fs.mkdir(path.join(gitDir, 'rebase-merge'));
    await daemon.start();
    const id = sessionId(2);
    await daemon.writeSession(id, { maxContextTokens: 1000 });
    await daemon.appendLines(id, usageLine(1200));

    const deferred = await waitFor(
      async () => {
        const status = await daemon.status();
        return status.handoffs[0]?.state === 'deferred' ? status.handoffs[0] : null;
      },
      { ...DEADLINE, message: 'the commit to be deferred' },
    );
    expect(deferred.reason).toBe('a rebase is in progress');
    expect(deferred.commit).toBeNull();
    expect((await repo.git('log', '-1', '--format=%s')).trim()).toBe('initial commit');
    const human = await daemon.daemon(['status']);
    expect(human.stdout).toContain(`${deferred.path}  offline  not committed: a rebase is in progress`);

    await fs.rm(path.join(gitDir, 'rebase-merge'), { recursive: true });
    const committed = await waitFor(
      async () => {
        const status = await daemon.status();
        return status.handoffs[0]?.state === 'committed' ? status.handoffs[0] : null;
      },
      { ...DEADLINE, message: 'the commit once the rebase is over' },
    );
    expect(committed.commit).toBe((await repo.git('rev-parse', 'HEAD')).trim());
    expect((await repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(deferred.path);
  });

  it('D3 with auto-commit off the doc stays uncommitted and status says so', async () => {
    const off = await makeDaemonRepo({ config: { daemon: { autoCommit: false } } });
    try {
      await off.start();
      const id = sessionId(3);
      await off.writeSession(id, { maxContextTokens: 1000 });
      await off.appendLines(id, usageLine(5000));
      const handoff = await waitFor(async () => (await off.status()).handoffs[0], { ...DEADLINE, message: 'the handoff in status' });
      expect(handoff).toMatchObject({
        state: 'off',
        commit: null,
        reason: 'auto-commit is off (daemon.commit or daemon.autoCommit in the config)',
      });
      expect(await handoffDocs(off.root)).toEqual([handoff.path]);
      expect((await off.repo.git('log', '-1', '--format=%s')).trim()).toBe('initial commit');
    } finally {
      await off.cleanup();
    }
  });
});

describe('D1 a session owned by a live ai-zen process', { timeout: 60_000 }, () => {
  let daemon: DaemonRepo;
  let owner: SessionOwner | null = null;
  let events: AnyEvent[];
  beforeEach(async () => {
    daemon = await makeDaemonRepo();
    await daemon.start();
    events = [];
    const client = await daemon.connect();
    await client.subscribe((event) => events.push(event));
    const started = await startSessionOwner(daemon.root, { create: 1000 }, daemon.env);
    if (!started.ok) throw new Error(started.error);
    owner = started.owner;
  });
  afterEach(async () => {
    await owner?.kill();
    await daemon.cleanup();
  });

  const sessionFromDaemon = async (id: string) => {
    const result = await daemon.daemon(['sessions', '--all', '--json']);
    return SessionsReply.parse(JSON.parse(result.stdout)).sessions.find((session) => session.id === id) ?? null;
  };

  it('D1 is left to its owner — no doc from the daemon — but its overflow is announced, and migrate over IPC is refused', async () => {
    const { id } = owner!;
    await owner!.usage(1500);
    await waitFor(() => events.some((event) => event.name === 'session.overflowed'), { ...DEADLINE, message: 'the overflow event' });
    expect(events.filter((event) => event.name === 'session.overflowed')).toEqual([
      { name: 'session.overflowed', payload: { sessionId: id, promptTokens: 1500, maxContextTokens: 1000, source: 'ai-zen' } },
    ]);
    const session = await waitFor(
      async () => {
        const current = await sessionFromDaemon(id);
        return current?.action ? current : null;
      },
      { ...DEADLINE, message: 'the daemon to decide' },
    );
    expect(session).toMatchObject({
      owner: 'live',
      overflowed: true,
      closed: false,
      action: 'left to its owner',
      promptTokens: 1500,
      percent: 150,
    });
    expect(await handoffDocs(daemon.root)).toEqual([]);
    expect(events.map((event) => event.name)).not.toContain('handoff.started');

    const refused = await daemon.daemon(['migrate', id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `ai-zen-daemon: session ${id.slice(0, 8)} is open in another ai-zen process; its owner hands it over (/migrate there)\n`,
    );
    expect(await handoffDocs(daemon.root)).toEqual([]);
  });

  it('D1 when the owner goes away without handing the overflowed session over, the daemon does', async () => {
    const { id } = owner!;
    await owner!.usage(1500);
    await waitFor(async () => (await sessionFromDaemon(id))?.action === 'left to its owner', { ...DEADLINE, message: 'left to its owner' });
    await owner!.kill();
    const [doc] = await waitFor(async () => ((await handoffDocs(daemon.root)).length > 0 ? handoffDocs(daemon.root) : null), {
      ...DEADLINE,
      message: 'the daemon to hand it over',
    });
    expect(doc).toContain(id.slice(0, 8));
    await waitFor(async () => (await sessionFromDaemon(id))?.closed === true, { ...DEADLINE, message: 'the session to be closed' });
  });

  it('D1 overflow is announced once per crossing: not again for a later usage line, again after it dropped below', async () => {
    const { id } = owner!;
    const seen = async (tokens: number) =>
      waitFor(async () => (await sessionFromDaemon(id))?.promptTokens === tokens, { ...DEADLINE, message: `usage ${tokens}` });
    await owner!.usage(1500);
    await seen(1500);
    await owner!.usage(1600);
    await seen(1600);
    await owner!.usage(500);
    await seen(500);
    await owner!.usage(1700);
    await waitFor(() => events.filter((event) => event.name === 'session.overflowed').length >= 2, {
      ...DEADLINE,
      message: 'the second crossing',
    });
    const crossings = events
      .filter((event) => event.name === 'session.overflowed')
      .map((event) => (event.payload as { promptTokens: number }).promptTokens);
    expect(crossings).toEqual([1500, 1700]);
  });
});
