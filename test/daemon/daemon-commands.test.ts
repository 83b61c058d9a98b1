// D5: `ai-zen-daemon handoff|migrate|sessions|handoffs|facts` against a real daemon, and the
// user's hooks run on the daemon's events.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FactsInfo, HandoffReply, HandoffsReply } from '../../src/daemon/side-channels/status-schema.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';

describe('D5 commands through the daemon', { timeout: 60_000 }, () => {
  let daemon: DaemonRepo;
  beforeEach(async () => {
    daemon = await makeDaemonRepo();
    await daemon.start();
  });
  afterEach(async () => {
    await daemon.cleanup();
  });

  it('D5 handoff writes a doc for the latest session, which carries on; migrate then hands it over to a new one', async () => {
    const id = sessionId(11);
    await daemon.writeSession(id, { maxContextTokens: 100_000 });
    await daemon.appendLines(id, usageLine(40_000));
    await fs.writeFile(path.join(daemon.root, '.ai-zen', 'latest-session.json'), `${JSON.stringify({ id, previousId: null })}\n`);
    await waitFor(async () => (await daemon.status()).sessions.some((session) => session.id === id && session.promptTokens === 40_000), {
      message: 'the daemon to see the session',
    });

    const handoff = await daemon.daemon(['handoff', '--json']);
    expect(handoff.stderr).toBe('');
    const written = HandoffReply.parse(JSON.parse(handoff.stdout));
    expect(written).toMatchObject({ mode: 'handoff', sessionId: id, executor: 'offline', newSessionId: null, downgrades: [] });
    expect(await handoffDocs(daemon.root)).toEqual([written.path]);
    const sessions = (await daemon.status()).sessions;
    expect(sessions.find((session) => session.id === id)?.closed).toBe(false);

    // An executor that needs a model, with none configured, is downgraded to offline and says so (R11, X1).
    const migrate = await daemon.daemon(['migrate', '--executor', 'summary']);
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toMatch(
      /^\.ai-zen\/handoffs\/\d{8}-\d{6}-00000011(-2)?\.md\n {2}written by offline for session 00000011\n {2}\(summary failed: no model is configured\)\n {2}new session [0-9a-f-]{36}\n$/,
    );
    const newId = /new session (\S+)/.exec(migrate.stdout)![1]!;
    await waitFor(async () => (await daemon.status()).sessions.some((session) => session.id === newId), {
      message: 'the new session in status',
    });

    const handoffs = await waitFor(
      async () => {
        const reply = HandoffsReply.parse(JSON.parse((await daemon.daemon(['handoffs', '--json'])).stdout));
        return reply.handoffs.length === 2 && reply.handoffs.every((entry) => entry.state === 'committed') ? reply.handoffs : null;
      },
      { timeoutMs: 40_000, message: 'both handoffs committed' },
    );
    expect(handoffs.map((entry) => entry.mode)).toEqual(['handoff', 'migrate']);
    expect((await daemon.repo.git('log', '--format=%s', '-2')).trim().split('\n')).toEqual([
      'handoff: 00000011 (offline)',
      'handoff: 00000011 (offline)',
    ]);
  });

  it('D5 migrate of a session that does not exist, or with no session at all, is one clear line', async () => {
    const none = await daemon.daemon(['migrate']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^ai-zen-daemon: no session in .* yet; name one \(ai-zen-daemon sessions lists them\)\n$/);
    const missing = await daemon.daemon(['handoff', sessionId(99)]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`ai-zen-daemon: no session "${sessionId(99)}" in ${daemon.root}: there is none yet\n`);
    const bad = await daemon.daemon(['handoff', '../../etc/passwd']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('ai-zen-daemon: not a session id or prefix: "../../etc/passwd"\n');
    // The fork writes only an idle session's document, by the daemon's own choice: no one asks for it.
    const fork = await daemon.daemon(['handoff', '--executor', 'fork']);
    expect(fork.code).toBe(2);
    expect(fork.stderr).toMatch(/argument 'fork' is invalid\. Allowed choices are self, summary, offline\./);
  });

  it('D2 facts and status show the branch, the commit and the listening ports', async () => {
    const facts = FactsInfo.parse(JSON.parse((await daemon.daemon(['facts', '--json'])).stdout));
    const head = (await daemon.repo.git('rev-parse', 'HEAD')).trim();
    expect(facts.git).toMatchObject({ known: true, value: { branch: 'main', head: { sha: head, subject: 'initial commit' } } });
    expect(facts.ports.known).toBe(true);
    const human = await daemon.daemon(['status']);
    expect(human.stdout).toContain(`git     main @ ${head.slice(0, 7)} "initial commit"`);
    expect(human.stdout).toMatch(/^ports {3}/m);

    // A long subject is cut to one status line's share (60 characters, with …); --json keeps it whole.
    const subject = `fix: ${'the parser keeps every flag it was given '.repeat(3).trim()}`;
    await daemon.repo.git('commit', '-q', '--allow-empty', '-m', subject);
    const shown = await waitFor(
      async () => {
        const line = (await daemon.daemon(['status'])).stdout.split('\n').find((text) => text.startsWith('git '));
        return line?.includes(' "fix: ') ? line : null;
      },
      { timeoutMs: 20_000, message: 'status names the new commit' },
    );
    expect(shown).toContain(`"${subject.slice(0, 59).trimEnd()}…"`);
    const whole = FactsInfo.parse(JSON.parse((await daemon.daemon(['facts', '--json'])).stdout));
    expect(whole.git).toMatchObject({ value: { head: { subject } } });
  });
});

describe('D1 the user’s hooks run on the daemon’s events', { timeout: 60_000 }, () => {
  let daemon: DaemonRepo;
  afterEach(async () => {
    await daemon.cleanup();
  });

  it('D1 on-overflow and on-commit get the event as JSON on stdin', async () => {
    daemon = await makeDaemonRepo();
    const hooks = path.join(daemon.root, '.ai-zen', 'hooks');
    await fs.mkdir(hooks, { recursive: true });
    for (const name of ['on-overflow', 'on-commit']) {
      await fs.writeFile(path.join(hooks, name), `#!/bin/sh\ncat > "$AI_ZEN_ROOT/.ai-zen/${name}.json"\n`, { mode: 0o755 });
    }
    // A repo's hooks run only once the user trusts them (T4).
    expect((await daemon.daemon(['trust'])).code).toBe(0);
    await daemon.start();
    const id = sessionId(12);
    await daemon.writeSession(id, { maxContextTokens: 1000 });
    await daemon.appendLines(id, usageLine(1001));
    const read = (name: string) =>
      fs.readFile(path.join(daemon.root, '.ai-zen', `${name}.json`), 'utf8').then((text) => JSON.parse(text) as Record<string, unknown>);
    const overflow = await waitFor(() => read('on-overflow'), { timeoutMs: 30_000, message: 'the on-overflow hook' });
    expect(overflow).toMatchObject({
      v: 1,
      hook: 'on-overflow',
      event: 'session.overflowed',
      root: daemon.root,
      payload: { sessionId: id, promptTokens: 1001, maxContextTokens: 1000 },
    });
    const commit = await waitFor(() => read('on-commit'), { timeoutMs: 30_000, message: 'the on-commit hook' });
    expect(commit).toMatchObject({
      hook: 'on-commit',
      event: 'handoff.committed',
      payload: { commit: (await daemon.repo.git('rev-parse', 'HEAD')).trim() },
    });
  });
});
