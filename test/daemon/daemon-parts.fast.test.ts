// The daemon's small parts, with real inputs: the facts cache, the committer's retry and
// bookkeeping (its git work is commit-handoff's, injected here), notification texts, the bar.
import { describe, expect, it } from 'vitest';
import { contextBar, sessionLine } from '../../src/cli/daemon/render.js';
import { notificationFor } from '../../src/daemon/side-channels/daemon-notifications.js';
import { createFactsCache } from '../../src/daemon/handoffs/facts-cache.js';
import { formatTokens } from '../../src/format-tokens.js';
import { AUTO_COMMIT_OFF, createHandoffCommitter } from '../../src/daemon/committing/handoff-committer.js';
import { formatLogRecord } from '../../src/daemon/process/readable-log-stream.js';
import type { CommitHandoffOptions, CommitHandoffResult } from '../../src/daemon/committing/commit-handoff.js';
import { EventBus, type AnyEvent } from '../../src/events.js';
import { silentLogger } from '../../src/log/logger.js';
import { memoryLogger } from '../support/memory-logger.js';
import type { Facts } from '../../src/probe/facts.js';
import { waitFor } from '../support/wait-for.js';
import { NO_COST } from '../../src/handoff/executors/types.js';

const quiet = silentLogger();
/** These tests are about the committer's bookkeeping: every document passes the T1 check (handoff-doc-check has its own tests). */
const sealedByAiZen = async () => ({ ok: true as const, content: Buffer.from('# Handoff\n') });

function factsAt(n: number): Facts {
  return { capturedAt: `t${n}`, root: '/r', git: { known: false, why: `capture ${n}` }, ports: { known: true, value: [] } };
}

describe('D2 the facts cache', () => {
  it('D2 serves cached facts until the repository changes or they age, and joins a capture under way', async () => {
    let captures = 0;
    let now = 0;
    const cache = createFactsCache({ provider: { capture: async () => factsAt(++captures) }, clock: () => now, maxAgeMs: 1000 });
    expect(cache.current()).toBeNull();
    const [a, b] = await Promise.all([cache.capture(), cache.capture()]);
    expect(a).toBe(b);
    expect(captures).toBe(1);
    expect((await cache.get()).capturedAt).toBe('t1');
    cache.invalidate();
    expect((await cache.get()).capturedAt).toBe('t2');
    now = 500;
    expect((await cache.get()).capturedAt).toBe('t2');
    now = 2000;
    expect((await cache.get()).capturedAt).toBe('t3');
    expect((await cache.capture()).capturedAt).toBe('t4'); // on demand is always fresh
  });
});

describe('D3 the handoff committer', () => {
  const handoff = (n: number) => ({
    path: `.ai-zen/handoffs/2026120${n}-000000-abcd1234.md`,
    sessionId: `abcd1234-0000-4000-8000-00000000000${n}`,
    executor: 'self',
    mode: 'migrate',
    at: `2026-12-0${n}T00:00:00Z`,
  });

  it('D3 commits each doc alone with `handoff: <id8> (<executor>)`; a refusal is recorded, announced once, and retried on a git change', async () => {
    const calls: CommitHandoffOptions[] = [];
    let obstacle: string | null = 'a rebase is in progress';
    const commit = async (options: CommitHandoffOptions): Promise<CommitHandoffResult> => {
      calls.push(options);
      return obstacle ? { committed: false, reason: obstacle, retryable: true } : { committed: true, commit: 'c0ffee' };
    };
    const events = new EventBus();
    const seen: AnyEvent[] = [];
    events.onAny((event) => seen.push(event));
    const committer = createHandoffCommitter({
      root: '/r',
      enabled: true,
      events,
      logger: quiet,
      checkDocument: sealedByAiZen,
      commit,
      retryMs: 60_000,
    });
    committer.add(handoff(1));
    committer.add(handoff(1)); // the same line read again: one record
    await waitFor(() => committer.list()[0]?.status.state === 'deferred');
    expect(calls.map((call) => call.message)).toEqual(['handoff: abcd1234 (self)']);
    expect(committer.list()).toEqual([
      expect.objectContaining({
        path: handoff(1).path,
        status: { state: 'deferred', reason: 'a rebase is in progress', retryable: true },
        attempts: 1,
      }),
    ]);
    committer.retry();
    await waitFor(() => calls.length === 2);
    await waitFor(() => committer.list()[0]?.attempts === 2);
    expect(seen.filter((event) => event.name === 'handoff.commit-deferred')).toHaveLength(1);
    obstacle = null;
    committer.retry();
    await waitFor(() => committer.list()[0]?.status.state === 'committed');
    expect(committer.list()[0]!.status).toEqual({ state: 'committed', commit: 'c0ffee' });
    expect(seen.map((event) => event.name)).toEqual(['handoff.commit-deferred', 'handoff.committed']);
    committer.retry();
    await committer.close();
    expect(calls).toHaveLength(3); // a committed doc is never tried again
  });

  it('D3 retries on a backoff timer; docs found at startup are committed without news; off means never', async () => {
    let failures = 2;
    const commit = async (): Promise<CommitHandoffResult> =>
      failures-- > 0
        ? { committed: false, reason: 'index.lock is held by another git process', retryable: true }
        : { committed: true, commit: 'beef' };
    const events = new EventBus();
    const seen: AnyEvent[] = [];
    events.onAny((event) => seen.push(event));
    const committer = createHandoffCommitter({
      root: '/r',
      enabled: true,
      events,
      logger: quiet,
      checkDocument: sealedByAiZen,
      commit,
      retryMs: 10,
      lookupCommitted: async () => new Map(),
    });
    committer.add(handoff(2), { announce: false });
    await waitFor(() => committer.list()[0]?.status.state === 'committed');
    expect(committer.list()[0]!.attempts).toBe(3);
    expect(seen).toEqual([]);
    await committer.close();

    const off = createHandoffCommitter({
      root: '/r',
      enabled: false,
      events,
      logger: quiet,
      commit: async () => {
        throw new Error('must not run');
      },
    });
    off.add(handoff(3));
    off.retry();
    expect(off.list()[0]!.status).toEqual({ state: 'off', reason: AUTO_COMMIT_OFF });
    await off.close();
  });
});

describe('D3 handoff documents found at startup', () => {
  it('D3 those git already holds unchanged are known committed from one batched look-up, the rest are committed', async () => {
    const docA = '.ai-zen/handoffs/20261201-000000-abcd1234.md';
    const docB = '.ai-zen/handoffs/20261201-000001-abcd1234.md';
    const calls: string[] = [];
    const lookups: string[][] = [];
    const committer = createHandoffCommitter({
      root: '/r',
      enabled: true,
      events: new EventBus(),
      logger: quiet,
      checkDocument: sealedByAiZen,
      commit: async (options) => {
        calls.push(options.docPath);
        return { committed: true, commit: 'new' };
      },
      lookupCommitted: async (paths) => {
        lookups.push([...paths]);
        return new Map([[docA, 'old-a']]);
      },
    });
    for (const name of [docA, docB])
      committer.add({ path: name, sessionId: 'abcd1234-x', executor: 'offline', mode: 'migrate', at: name }, { announce: false });
    await waitFor(() => {
      const records = committer.list();
      return records.length === 2 && records.every((record) => record.status.state === 'committed');
    });
    expect(lookups).toEqual([[docA, docB]]);
    expect(calls).toEqual([docB]);
    expect(committer.list().map((record) => record.status)).toEqual([
      { state: 'committed', commit: 'old-a' },
      { state: 'committed', commit: 'new' },
    ]);
    await committer.close();
  });
});

describe('D4 notification texts and the context bar', () => {
  it('a session that was handed off and then compacted is announced as compacted, naming its document as the record of the state before; a document written as it compacted is not announced twice, and a compaction of a session never handed off is not announced', () => {
    const compacted = {
      sessionId: 'abcd1234-ffff',
      agent: 'claude-code',
      transcript: '/t/a.jsonl',
      at: '2026-12-05T01:00:00Z',
      percent: 31,
    };
    expect(notificationFor({ name: 'session.compacted', payload: { ...compacted, document: '.ai-zen/handoffs/a.md' } })).toEqual({
      title: 'ai-zen: Claude Code compacted a session',
      body: 'Claude Code compacted session abcd1234 at 31% — .ai-zen/handoffs/a.md records the state before the compaction',
    });
    expect(notificationFor({ name: 'session.compacted', payload: compacted })).toBeNull();
    const atCompaction = {
      name: 'handoff.written',
      payload: {
        sessionId: 'abcd1234-ffff',
        mode: 'handoff',
        path: '.ai-zen/handoffs/a.md',
        absolutePath: '/r/.ai-zen/handoffs/a.md',
        executor: 'offline',
        cost: NO_COST,
        agent: 'claude-code',
        successorCommand: 'claude "Read the handoff document"',
      },
    } as const;
    expect(notificationFor(atCompaction)?.body).toContain('continue with:');
    expect(notificationFor({ ...atCompaction, payload: { ...atCompaction.payload, beforeCompaction: true } })).toBeNull();
  });

  it('D4 overflow names the session and its usage; outcomes name the doc, the reason or the commit', () => {
    const overflow = notificationFor(
      {
        name: 'session.overflowed',
        payload: { sessionId: 'abcd1234-ffff', promptTokens: 131_000, maxContextTokens: 128_000, source: 'ai-zen' },
      },
      { overflowOwner: 'unknown' },
    );
    expect(overflow).toEqual({
      title: 'ai-zen: context window full',
      body: 'session abcd1234 is at 131k/128k tokens',
      urgency: 'critical',
    });
    expect(
      notificationFor({ name: 'handoff.failed', payload: { sessionId: 'abcd1234-ffff', mode: 'migrate', reason: 'disk full' } })?.body,
    ).toBe('session abcd1234: disk full');
    // The commit is folded into the handoff's notification, never one of its own.
    expect(notificationFor({ name: 'handoff.committed', payload: { path: 'a.md', commit: '0123456789abcdef' } })).toBeNull();
    expect(notificationFor({ name: 'handoff.commit-deferred', payload: { path: 'a.md', reason: 'a rebase is in progress' } })).toBeNull();
    const written = {
      name: 'handoff.written',
      payload: { sessionId: 'abcd1234-ffff', mode: 'migrate', path: 'a.md', absolutePath: '/r/a.md', executor: 'offline', cost: NO_COST },
    } as const;
    expect(notificationFor(written, { commit: { state: 'deferred', reason: 'a rebase is in progress', retryable: true } })?.body).toBe(
      'a.md (session abcd1234, offline) — not committed yet: a rebase is in progress',
    );
    expect(notificationFor(written, { commit: { state: 'off', reason: 'off' } })?.body).toBe('a.md (session abcd1234, offline)');
    expect(notificationFor({ name: 'handoff.started', payload: { sessionId: 'x', mode: 'migrate', executor: 'self' } })).toBeNull();
  });

  it('D5 the context bar and token counts read like `██████░░ 78%  99k/128k`', () => {
    expect(contextBar(78)).toBe('██████░░');
    expect(contextBar(0)).toBe('░░░░░░░░');
    expect(contextBar(131)).toBe('████████');
    expect([999, 1000, 1500, 99_000, 131_072, 2_000_000].map(formatTokens)).toEqual(['999', '1k', '1.5k', '99k', '131k', '2M']);
    const line = sessionLine({
      id: 'abcd1234-0000',
      file: 'f',
      source: 'ai-zen',
      model: 'gpt-4o',
      promptTokens: 99_000,
      maxContextTokens: 128_000,
      percent: 77,
      owner: 'live',
      closed: false,
      successorId: null,
      overflowed: false,
      action: null,
    });
    expect(line).toBe('abcd1234  ██████░░  77%  99k/128k   gpt-4o · owner: live');
  });

  it('D1 foreground log lines are readable: time, level, message, fields', () => {
    const line = formatLogRecord(
      JSON.stringify({
        level: 40,
        time: Date.UTC(2026, 11, 2, 10, 54, 18, 123),
        pid: 1,
        hostname: 'h',
        name: 'ai-zen-daemon',
        msg: 'handoff document not committed yet',
        path: '.ai-zen/handoffs/a.md',
        reason: 'a rebase is in progress',
      }),
    );
    expect(line).toBe('10:54:18.123 WARN  handoff document not committed yet path=.ai-zen/handoffs/a.md reason="a rebase is in progress"');
  });

  it('a foreground line names the component that spoke, from its child logger', () => {
    const log = memoryLogger();
    log.logger.child({ component: 'committer' }).warn({ path: '.ai-zen/handoffs/a.md' }, 'handoff document not committed yet');
    const line = formatLogRecord(log.lines[0]!);
    expect(line).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN {2}committer: handoff document not committed yet path=\.ai-zen\/handoffs\/a\.md$/);
  });
});
