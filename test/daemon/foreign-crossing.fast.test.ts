// Another agent's crossing, step by step: the pure state machine (foreign-crossing.ts) with no
// daemon, no child process and no timer. Each row feeds events at given instants and asserts what
// the user would see: which document is written and by whom (the `write` and `adopt` effects, with
// the downgrade the record will carry), the correction the Stop hook sends, the notification, and
// the action `status` shows.
import { describe, expect, test } from 'vitest';
import {
  documentedCrossing,
  EXITED_REASON,
  newCrossing,
  RETRY_REASON,
  SCRIPT_REASON,
  step,
  type CrossingAgent,
  type CrossingEffect,
  type CrossingEvent,
  type CrossingRecord,
  type Reading,
} from '../../src/daemon/handoffs/foreign-crossing.js';
import type { Facts } from '../../src/probe/facts.js';
import type { HandoffChecks } from '../../src/session/format.js';

const T0 = Date.parse('2026-12-04T12:00:00Z');
const MINUTE = 60_000;

const claude: CrossingAgent = {
  kind: 'claude-code',
  label: 'Claude Code',
  handoff: true,
  selfHooks: { mustAnswer: false },
  graceMs: 0,
  selfDeadlineMs: 180_000,
};
const gemini: CrossingAgent = { ...claude, kind: 'gemini', label: 'Gemini CLI', selfHooks: { mustAnswer: true }, selfDeadlineMs: 30_000 };
const noHooks: CrossingAgent = { ...claude, kind: 'pi', label: 'pi', selfHooks: null };

const doc = { relative: '.ai-zen/handoffs/20261204-120000-1a2b3c4d.md', absolute: '/repo/.ai-zen/handoffs/20261204-120000-1a2b3c4d.md' };
const facts: Facts = {
  capturedAt: new Date(T0).toISOString(),
  root: '/repo',
  git: { known: false, why: 'test' },
  ports: { known: false, why: 'test' },
};
const passing: HandoffChecks = { sections: [], facts: [], files: [], commands: [] };
const failing: HandoffChecks = {
  sections: ['the ⚠️ section is missing'],
  facts: [],
  files: ['src/a.ts was changed and is not named'],
  commands: [],
};

function reading(percent: number, more: Partial<Reading> = {}): Reading {
  return {
    sessionId: '1a2b3c4d-0000-4000-8000-000000000000',
    percent,
    handoffAt: 80,
    compactsAt: null,
    startedAtMs: null,
    firstSeen: false,
    ...more,
  };
}

const judge = (percent = 85, more: Partial<Reading> = {}): CrossingEvent => ({
  type: 'judge',
  trigger: 'crossed',
  reading: reading(percent, more),
});

/** Feeds each event at its instant; returns the record after, and the effects of each step. */
function run(start: CrossingRecord, events: readonly (readonly [CrossingEvent, number])[]) {
  let record = start;
  const effects: (readonly CrossingEffect[])[] = [];
  for (const [event, at] of events) {
    const result = step(record, event, at);
    record = result.next;
    effects.push(result.effects);
  }
  return { record, effects, last: effects.at(-1) ?? [] };
}

/** A crossing whose agent was asked at its Stop hook and named `doc` (self). */
function claimed(agent: CrossingAgent = claude) {
  return run(newCrossing(agent, T0), [
    [judge(), T0],
    [{ type: 'hooks-known', installed: true, live: true }, T0],
    [{ type: 'claimed', doc, facts }, T0 + MINUTE],
  ]);
}

const writes = (effects: readonly CrossingEffect[]) => effects.filter((effect) => effect.type === 'write');

/** What the user would see at the end of a row: the document and who writes it, the correction, the notice, status. */
interface Seen {
  readonly phase: CrossingRecord['phase']['name'];
  readonly action: string | null;
  /** The daemon writes the document: its reason, offline or not, and the downgrade it records (no `after`: none; null: nothing written). */
  readonly write: Partial<Extract<CrossingEffect, { type: 'write' }>> | null;
  readonly adopted?: boolean;
  /** The one correction the Stop hook sends (never a second). */
  readonly correction?: readonly string[];
  readonly notice?: string;
}

const asked: (readonly [CrossingEvent, number])[] = [
  [judge(), T0],
  [{ type: 'hooks-known', installed: true, live: true }, T0],
];
const named: (readonly [CrossingEvent, number])[] = [...asked, [{ type: 'claimed', doc, facts }, T0 + MINUTE]];
const review = (
  purpose: 'correct' | 'finish' | 'deadline',
  checks: HandoffChecks | null,
  verified = true,
  offline = false,
): CrossingEvent => ({
  type: 'reviewed',
  purpose,
  offline,
  doc,
  verified,
  checks,
});
const self = (reason: string) => ({ from: 'self' as const, reason });

const rows: readonly { name: string; agent: CrossingAgent; events: (readonly [CrossingEvent, number])[]; seen: Seen }[] = [
  {
    name: 'no live owner: the agent exits without stopping again, so at its deadline the daemon writes the document, a downgrade from self',
    agent: claude,
    events: [...asked, [{ type: 'deadline', at: T0 + 180_000 }, T0 + 180_000]],
    seen: {
      phase: 'writing',
      action: 'waiting for Claude Code to stop and write the document itself (self)',
      write: {
        reason: 'the Stop hook did not take the handoff in time',
        offline: false,
        after: self('the Stop hook did not take the handoff in time'),
      },
    },
  },
  {
    name: "each agent's own deadline: Gemini's 30 s passes while Claude's would still wait",
    agent: gemini,
    events: [[{ type: 'hook-answered' }, T0], ...asked, [{ type: 'deadline', at: T0 + 30_000 }, T0 + 30_000]],
    seen: {
      phase: 'writing',
      action: 'waiting for Gemini CLI to stop and write the document itself (self)',
      write: { after: self('the Stop hook did not take the handoff in time') },
    },
  },
  {
    name: 'the agent wrote a document that fails the checks: it is told once, exactly what is wrong',
    agent: claude,
    events: [...named, [review('correct', failing), T0 + 2 * MINUTE]],
    seen: {
      phase: 'awaiting-document',
      action: `asked Claude Code to correct ${doc.relative} (self)`,
      write: null,
      correction: ['the ⚠️ section is missing', 'src/a.ts was changed and is not named'],
    },
  },
  {
    name: 'still failing after the one correction: no second correction, the daemon writes its own',
    agent: claude,
    events: [
      ...named,
      [review('correct', failing), T0 + 2 * MINUTE],
      [review('correct', failing), T0 + 3 * MINUTE],
      [review('finish', failing), T0 + 3 * MINUTE],
    ],
    seen: {
      phase: 'writing',
      action: `asked Claude Code to correct ${doc.relative} (self)`,
      write: { reason: 'self fell back', after: self("the agent's document still failed the checks after one correction") },
      correction: ['the ⚠️ section is missing', 'src/a.ts was changed and is not named'],
    },
  },
  {
    name: 'the agent wrote a document that passes: it is adopted as its own (self)',
    agent: claude,
    events: [...named, [review('correct', passing), T0 + 2 * MINUTE], [review('finish', passing), T0 + 2 * MINUTE]],
    seen: { phase: 'writing', action: `waiting for Claude Code to write ${doc.relative} (self)`, write: null, adopted: true },
  },
  {
    name: 'a script run (claude -p) stops: the daemon writes the document and the script keeps its answer',
    agent: claude,
    events: [...asked, [{ type: 'script-stopped' }, T0 + MINUTE]],
    seen: {
      phase: 'writing',
      action: 'waiting for Claude Code to stop and write the document itself (self)',
      write: { reason: SCRIPT_REASON, offline: false },
    },
  },
  {
    name: 'PreCompact while the agent was asked and wrote nothing: the offline document, before it compacts',
    agent: claude,
    events: [...named, [review('finish', null, false, true), T0 + 2 * MINUTE]],
    seen: {
      phase: 'writing',
      action: `waiting for Claude Code to write ${doc.relative} (self)`,
      write: { offline: true, after: self('the agent stopped without writing a document that verifies') },
    },
  },
  {
    name: 'PreCompact with nothing asked: the offline document now',
    agent: noHooks,
    events: [[{ type: 'write-requested', reason: 'pre-compact (auto)', offline: true, byHand: false }, T0]],
    seen: { phase: 'writing', action: null, write: { reason: 'pre-compact (auto)', offline: true } },
  },
  {
    name: 'a handoff by hand below the threshold: written, and the crossing to come keeps its own',
    agent: claude,
    events: [
      [{ type: 'write-requested', reason: 'by hand', offline: false, byHand: true }, T0],
      [{ type: 'written', path: doc.relative, executor: 'summary', successorCommand: 'claude "…"', counts: false }, T0],
    ],
    seen: { phase: 'quiet', action: `handoff written (summary): ${doc.relative}`, write: null },
  },
  {
    name: 'hooks that never answered (Gemini in an untrusted folder): the daemon writes it at once',
    agent: gemini,
    events: [[judge(), T0]],
    seen: { phase: 'writing', action: null, write: { reason: 'threshold' } },
  },
  {
    name: 'a young session waits out its grace window',
    agent: { ...claude, graceMs: 120_000 },
    events: [[judge(85, { startedAtMs: T0 - 30_000 }), T0]],
    seen: { phase: 'held', action: 'started less than two minutes ago: waiting', write: null },
  },
  {
    name: 'three handoffs in 15 minutes: the fourth crossing stops trying, and the user is told',
    agent: noHooks,
    events: [
      ...[0, 1, 2].flatMap((index): (readonly [CrossingEvent, number])[] => [
        [judge(), T0 + index * MINUTE],
        [{ type: 'written', path: doc.relative, executor: 'offline', successorCommand: 'pi "…"', counts: true }, T0 + index * MINUTE],
        [{ type: 'dropped' }, T0 + index * MINUTE],
      ]),
      [judge(), T0 + 4 * MINUTE],
    ],
    seen: { phase: 'stopped', action: '3 handoffs in 15 minutes: stopped trying', write: null, notice: 'ai-zen: pi handoffs stopped' },
  },
  {
    name: 'an agent the daemon cannot hand off says so',
    agent: { ...claude, kind: 'mystery', handoff: false },
    events: [[judge(), T0]],
    seen: { phase: 'unsupported', action: 'the daemon cannot hand off mystery sessions', write: null },
  },
];

describe('step, row by row', () => {
  test.each(rows)('$name', ({ agent, events, seen }) => {
    const { record, effects } = run(newCrossing(agent, T0), events);
    const all = effects.flat();
    const last = effects.at(-1) ?? [];
    expect(record.phase.name).toBe(seen.phase);
    expect(record.action).toBe(seen.action);
    const written = writes(last);
    if (seen.write === null) expect(written).toEqual([]);
    else {
      expect(written).toEqual([expect.objectContaining(seen.write)]);
      if (!('after' in seen.write)) expect(written[0]).not.toHaveProperty('after');
    }
    expect(last.some((effect) => effect.type === 'adopt')).toBe(seen.adopted === true);
    const corrections = all.filter((effect) => effect.type === 'correct');
    expect(corrections.map((effect) => effect.problems)).toEqual(seen.correction ? [seen.correction] : []);
    expect(all.find((effect) => effect.type === 'notify')?.title).toBe(seen.notice);
  });
});

describe('the self deadline', () => {
  test('the agent never stops: at its own deadline the daemon writes the document itself, recorded as a downgrade from self', () => {
    const asked = run(newCrossing(claude, T0), [
      [judge(), T0],
      [{ type: 'hooks-known', installed: true, live: true }, T0],
    ]);
    expect(asked.record.action).toBe('waiting for Claude Code to stop and write the document itself (self)');
    expect(asked.last).toEqual([{ type: 'arm', timer: 'deadline', at: T0 + 180_000 }]);

    const stale = step(asked.record, { type: 'deadline', at: T0 + 1 }, T0 + 1);
    expect(stale.effects).toEqual([]);

    const due = step(asked.record, { type: 'deadline', at: T0 + 180_000 }, T0 + 180_000);
    expect(writes(due.effects)).toEqual([
      {
        type: 'write',
        reason: 'the Stop hook did not take the handoff in time',
        offline: false,
        byHand: false,
        trigger: 'threshold',
        after: { from: 'self', reason: 'the Stop hook did not take the handoff in time' },
      },
    ]);
    expect(due.effects).toContainEqual(
      expect.objectContaining({ type: 'log', message: 'no document from the agent in time; writing it offline' }),
    );

    const written = step(
      due.next,
      { type: 'written', path: doc.relative, executor: 'summary', successorCommand: 'claude "Read …"', counts: true },
      T0 + 181_000,
    );
    expect(written.next.phase.name).toBe('documented');
    expect(written.next.action).toBe(`handoff written (summary): ${doc.relative}`);
    expect(written.next.successorCommand).toBe('claude "Read …"');
  });

  test("each agent runs by its own deadline: Gemini's 30 s, not Claude's 180 s", () => {
    const asked = run(newCrossing(gemini, T0), [
      [{ type: 'hook-answered' }, T0],
      [judge(), T0],
      [{ type: 'hooks-known', installed: true, live: true }, T0],
    ]);
    expect(asked.record.action).toBe('waiting for Gemini CLI to stop and write the document itself (self)');
    expect(asked.last).toEqual([{ type: 'arm', timer: 'deadline', at: T0 + 30_000 }]);
  });

  test('asked to write and the deadline passes: its document is looked at first, adopted when it passes, else the daemon writes one', () => {
    const { record } = claimed();
    if (record.phase.name !== 'awaiting-document') throw new Error(`unexpected phase ${record.phase.name}`);
    const at = record.phase.deadline.at;
    expect(at).toBe(T0 + MINUTE + 180_000);
    expect(step(record, { type: 'deadline', at }, at).effects).toEqual([{ type: 'review', doc, facts }]);

    const missing = step(record, { type: 'reviewed', purpose: 'deadline', offline: false, doc, verified: false, checks: null }, at);
    expect(writes(missing.effects)).toEqual([
      expect.objectContaining({ offline: false, after: { from: 'self', reason: 'the agent did not write its document in time' } }),
    ]);

    const good = step(record, { type: 'reviewed', purpose: 'deadline', offline: false, doc, verified: true, checks: passing }, at);
    expect(good.effects).toEqual([{ type: 'adopt', doc, checks: passing }]);
  });
});

describe('the one correction', () => {
  test('a document that fails the checks is sent back once with what is wrong; still failing, the daemon writes its own', () => {
    const { record, last } = claimed();
    expect(record.action).toBe(`waiting for Claude Code to write ${doc.relative} (self)`);
    expect(last).toContainEqual({ type: 'announce-self' });

    const told = run(record, [
      [{ type: 'reviewed', purpose: 'correct', offline: false, doc, verified: true, checks: failing }, T0 + 2 * MINUTE],
    ]);
    expect(told.last).toContainEqual({
      type: 'correct',
      path: doc.relative,
      problems: ['the ⚠️ section is missing', 'src/a.ts was changed and is not named'],
    });
    expect(told.last).toContainEqual({ type: 'arm', timer: 'deadline', at: T0 + 2 * MINUTE + 180_000 });
    expect(told.record.action).toBe(`asked Claude Code to correct ${doc.relative} (self)`);

    const again = step(
      told.record,
      { type: 'reviewed', purpose: 'correct', offline: false, doc, verified: true, checks: failing },
      T0 + 3 * MINUTE,
    );
    expect(again.effects).toEqual([]);

    const finished = step(
      told.record,
      { type: 'reviewed', purpose: 'finish', offline: false, doc, verified: true, checks: failing },
      T0 + 3 * MINUTE,
    );
    expect(writes(finished.effects)).toEqual([
      expect.objectContaining({
        reason: 'self fell back',
        after: { from: 'self', reason: "the agent's document still failed the checks after one correction" },
      }),
    ]);
    expect(finished.effects).toContainEqual(
      expect.objectContaining({ type: 'log', message: "the agent's own document fails the checks; not adopted" }),
    );
  });

  test('a corrected document that passes is adopted as the agent wrote it (self)', () => {
    const told = run(claimed().record, [
      [{ type: 'reviewed', purpose: 'correct', offline: false, doc, verified: true, checks: failing }, T0 + 2 * MINUTE],
      [{ type: 'reviewed', purpose: 'correct', offline: false, doc, verified: true, checks: passing }, T0 + 3 * MINUTE],
    ]);
    expect(told.last).toEqual([]);
    const finished = step(
      told.record,
      { type: 'reviewed', purpose: 'finish', offline: false, doc, verified: true, checks: passing },
      T0 + 3 * MINUTE,
    );
    expect(finished.effects).toEqual([{ type: 'adopt', doc, checks: passing }]);
    const adopted = step(
      finished.next,
      { type: 'written', path: doc.relative, executor: 'self', successorCommand: 'claude "…"', counts: true },
      T0 + 3 * MINUTE,
    );
    expect(adopted.next.action).toBe(`handoff written (self): ${doc.relative}`);
    expect(adopted.next.phase.name).toBe('documented');
  });

  test('a document that is not there is not corrected: the agent stopped without one, the daemon writes it', () => {
    const { record } = claimed();
    expect(step(record, { type: 'reviewed', purpose: 'correct', offline: false, doc, verified: false, checks: null }, T0).effects).toEqual(
      [],
    );
    const finished = step(record, { type: 'reviewed', purpose: 'finish', offline: false, doc, verified: false, checks: null }, T0);
    expect(writes(finished.effects)).toEqual([
      expect.objectContaining({ after: { from: 'self', reason: 'the agent stopped without writing a document that verifies' } }),
    ]);
  });
});

describe('script runs, PreCompact, by hand', () => {
  test('a script run (claude -p) stops while the crossing waits for the agent: the daemon writes the document, no self, no downgrade', () => {
    const asked = run(newCrossing(claude, T0), [
      [judge(), T0],
      [{ type: 'hooks-known', installed: true, live: true }, T0],
      [{ type: 'script-stopped' }, T0 + MINUTE],
    ]);
    expect(asked.last).toEqual([{ type: 'write', reason: SCRIPT_REASON, offline: false, byHand: false, trigger: 'threshold' }]);
    expect(step(newCrossing(claude, T0), { type: 'script-stopped' }, T0).effects).toEqual([]);
  });

  test('PreCompact while the agent was asked: its document is taken if it passes, else the offline one is written before it compacts', () => {
    const { record } = claimed();
    const compacting = step(
      record,
      { type: 'reviewed', purpose: 'finish', offline: true, doc, verified: false, checks: null },
      T0 + 2 * MINUTE,
    );
    expect(writes(compacting.effects)).toEqual([
      expect.objectContaining({ offline: true, after: expect.objectContaining({ from: 'self' }) }),
    ]);
  });

  test('PreCompact with nothing asked: the offline document now, once per crossing', () => {
    const request: CrossingEvent = { type: 'write-requested', reason: 'pre-compact (auto)', offline: true, byHand: false };
    const first = run(newCrossing(noHooks, T0), [[request, T0]]);
    expect(first.last).toEqual([{ type: 'write', reason: 'pre-compact (auto)', offline: true, byHand: false, trigger: 'precompact' }]);
    const documented = run(first.record, [
      [{ type: 'written', path: doc.relative, executor: 'offline', successorCommand: 'pi "…"', counts: true }, T0],
      [request, T0 + MINUTE],
    ]);
    expect(documented.last).toEqual([]);
    expect(documented.record.action).toBe(`handoff written (offline): ${doc.relative}`);
  });

  test('a handoff by hand below the threshold is written, and the crossing still to come gets its own', () => {
    const byHand = run(newCrossing(claude, T0), [
      [{ type: 'write-requested', reason: 'by hand', offline: false, byHand: true, goal: 'ship it' }, T0],
      [{ type: 'written', path: doc.relative, executor: 'summary', successorCommand: 'claude "…"', counts: false }, T0],
    ]);
    expect(byHand.effects[0]).toEqual([
      { type: 'write', reason: 'by hand', offline: false, byHand: true, trigger: 'hand', goal: 'ship it' },
    ]);
    expect(byHand.record.phase.name).toBe('quiet');
    expect(byHand.record.successorCommand).toBe('claude "…"');
    const crossing = step(byHand.record, judge(), T0 + MINUTE);
    expect(crossing.effects).toEqual([{ type: 'ask-hooks' }]);
  });

  test('by hand off a crossing that has its document: a second document all the same', () => {
    const documented = run(newCrossing(noHooks, T0), [
      [judge(), T0],
      [{ type: 'written', path: doc.relative, executor: 'offline', successorCommand: 'pi "…"', counts: true }, T0],
    ]);
    expect(step(documented.record, judge(), T0).effects).toEqual([]);
    const again = step(documented.record, { type: 'write-requested', reason: 'by hand', offline: true, byHand: true }, T0 + MINUTE);
    expect(writes(again.effects)).toHaveLength(1);
  });
});

describe('who writes when nobody answers', () => {
  test('an agent without hooks (or whose hooks never answered) gets the daemon’s document at once: no self', () => {
    expect(step(newCrossing(noHooks, T0), judge(), T0).effects).toEqual([
      { type: 'write', reason: 'threshold', offline: false, byHand: false, trigger: 'threshold' },
    ]);
    // Gemini runs a project's hooks only in a trusted folder: none reached the daemon yet.
    expect(step(newCrossing(gemini, T0), judge(), T0).effects).toEqual([
      { type: 'write', reason: 'threshold', offline: false, byHand: false, trigger: 'threshold' },
    ]);
    const answered = step(newCrossing(gemini, T0), { type: 'hook-answered' }, T0).next;
    expect(step(answered, judge(), T0).effects).toEqual([{ type: 'ask-hooks' }]);
  });

  test('hooks asked and not installed: the daemon writes it', () => {
    const result = run(newCrossing(claude, T0), [
      [judge(), T0],
      [{ type: 'hooks-known', installed: false, live: true }, T0],
    ]);
    expect(result.last).toEqual([{ type: 'write', reason: 'threshold', offline: false, byHand: false, trigger: 'threshold' }]);
  });

  test('an agent the daemon cannot hand off says so in status', () => {
    const result = step(newCrossing({ ...claude, kind: 'mystery', handoff: false }, T0), judge(), T0);
    expect(result.effects).toEqual([]);
    expect(result.next.action).toBe('the daemon cannot hand off mystery sessions');
  });
});

describe('the loop guard inside the machine', () => {
  test('a young session waits out its own grace window, then goes when the retry comes', () => {
    const young = { ...claude, graceMs: 120_000 };
    const held = step(newCrossing(young, T0), judge(85, { startedAtMs: T0 - 30_000 }), T0);
    expect(held.next.action).toBe('started less than two minutes ago: waiting');
    expect(held.effects).toContainEqual({ type: 'arm', timer: 'retry', at: T0 + 90_000 + 50 });
    const retry = T0 + 90_050;
    const due = step(held.next, { type: 'retry-due', at: retry, reading: reading(86, { startedAtMs: T0 - 30_000 }) }, retry);
    expect(due.effects).toEqual([{ type: 'ask-hooks' }]);
  });

  test('a session first seen above its threshold waits for 10 more points; a new reading judges again', () => {
    const held = step(newCrossing(claude, T0), judge(85, { firstSeen: true }), T0);
    expect(held.next.action).toBe('first seen at 85%, already over 80%: hands off once it reaches 95%');
    expect(step(held.next, { type: 'judge', trigger: 'grew', reading: reading(90) }, T0 + MINUTE).effects).toEqual([
      expect.objectContaining({ type: 'log', message: 'no handoff for this crossing yet' }),
    ]);
    expect(step(held.next, { type: 'judge', trigger: 'grew', reading: reading(95) }, T0 + MINUTE).effects).toEqual([{ type: 'ask-hooks' }]);
  });

  test('three handoffs in 15 minutes: the fourth crossing stops trying and the user is told once', () => {
    let record = newCrossing(noHooks, T0);
    for (let index = 0; index < 3; index += 1) {
      record = run(record, [
        [judge(), T0 + index * MINUTE],
        [{ type: 'written', path: doc.relative, executor: 'offline', successorCommand: 'pi "…"', counts: true }, T0 + index * MINUTE],
        [{ type: 'dropped' }, T0 + index * MINUTE],
      ]).record;
    }
    const fourth = step(record, judge(), T0 + 4 * MINUTE);
    expect(fourth.next.phase.name).toBe('stopped');
    expect(fourth.effects).toContainEqual({
      type: 'notify',
      title: 'ai-zen: pi handoffs stopped',
      body: 'session 1a2b3c4d: 3 handoffs in 15 minutes: stopped trying',
    });
    const fifth = step(step(fourth.next, { type: 'dropped' }, T0 + 5 * MINUTE).next, judge(), T0 + 5 * MINUTE);
    expect(fifth.effects.filter((effect) => effect.type === 'notify')).toEqual([]);
  });

  test('dropping below keeps what status showed, and the next crossing is judged anew', () => {
    const documented = run(newCrossing(noHooks, T0), [
      [judge(), T0],
      [{ type: 'written', path: doc.relative, executor: 'offline', successorCommand: 'pi "…"', counts: true }, T0],
      [{ type: 'dropped' }, T0 + MINUTE],
    ]);
    expect(documented.record.phase.name).toBe('quiet');
    expect(documented.record.action).toBe(`handoff written (offline): ${doc.relative}`);
    expect(writes(step(documented.record, judge(), T0 + 2 * MINUTE).effects)).toHaveLength(1);
  });
});

describe('a run that has ended, a clock that is wrong, a disk that is full, a restart', () => {
  const qwen: CrossingAgent = { ...claude, kind: 'qwen-code', label: 'Qwen Code', graceMs: 120_000 };

  test('a one-shot run that crossed within its grace window and has exited is handed off when the window ends, at once: no Stop hook will come from a process that is gone', () => {
    const held = step(newCrossing(qwen, T0 - 30_000), judge(85, { startedAtMs: T0 - 30_000 }), T0);
    expect(held.next.action).toBe('started less than two minutes ago: waiting');
    const retry = T0 + 90_050;
    const due = step(held.next, { type: 'retry-due', at: retry, reading: reading(85, { startedAtMs: T0 - 30_000 }) }, retry);
    expect(due.effects).toEqual([{ type: 'ask-hooks' }]);
    const known = step(due.next, { type: 'hooks-known', installed: true, live: false }, retry);
    expect(known.next.phase.name).toBe('writing');
    expect(writes(known.effects)).toEqual([{ type: 'write', reason: EXITED_REASON, offline: false, byHand: false, trigger: 'threshold' }]);
    expect(known.effects.filter((effect) => effect.type === 'arm')).toEqual([]);
  });

  test('a session still running (or whose liveness is unknown), or one judged as it crosses, is asked at its Stop hook as before', () => {
    const crossing = run(newCrossing(qwen, T0 - 10 * MINUTE), [
      [judge(85), T0],
      [{ type: 'hooks-known', installed: true, live: false }, T0],
    ]);
    expect(crossing.record.phase.name).toBe('awaiting-stop');
    for (const live of [true, null]) {
      const known = run(newCrossing(qwen, T0 - 10 * MINUTE), [
        [judge(85), T0],
        [{ type: 'hooks-known', installed: true, live }, T0],
      ]);
      expect(known.record.phase.name).toBe('awaiting-stop');
      expect(writes(known.last)).toEqual([]);
    }
  });

  test('a transcript stamped a day in the future waits out the grace window from when the daemon first saw it, not for the whole skew', () => {
    const future = T0 + 24 * 60 * MINUTE;
    const seen = T0 - 30_000;
    const held = step(newCrossing(qwen, seen), judge(85, { startedAtMs: future }), T0);
    expect(held.next.action).toBe('started less than two minutes ago: waiting');
    expect(held.effects).toContainEqual({ type: 'arm', timer: 'retry', at: seen + 120_000 + 50 });
    // Seen longer ago than the window: judged at once.
    expect(step(newCrossing(qwen, T0 - 5 * MINUTE), judge(85, { startedAtMs: future }), T0).effects).toEqual([{ type: 'ask-hooks' }]);
  });

  test('a write that failed (the disk was full) is tried again with the backoff of ai-zen’s own retries, while the session stays over its threshold', () => {
    const failed = run(newCrossing(noHooks, T0), [
      [judge(), T0],
      [{ type: 'write-failed', reason: 'ENOSPC: no space left on device' }, T0],
    ]);
    expect(failed.record.phase).toEqual({ name: 'failed', retryAt: T0 + 5_000 });
    expect(failed.record.action).toBe('failed: ENOSPC: no space left on device; tried again in 5 s');
    expect(failed.last).toEqual([{ type: 'arm', timer: 'retry', at: T0 + 5_000 }]);
    const again = step(failed.record, { type: 'retry-due', at: T0 + 5_000, reading: reading(85) }, T0 + 5_000);
    expect(writes(again.effects)).toEqual([{ type: 'write', reason: RETRY_REASON, offline: false, byHand: false, trigger: 'threshold' }]);
    // The second failure waits twice as long.
    const second = step(again.next, { type: 'write-failed', reason: 'ENOSPC' }, T0 + 6_000);
    expect(second.effects).toEqual([{ type: 'arm', timer: 'retry', at: T0 + 16_000 }]);
    // Below its threshold by then: nothing is written.
    expect(step(second.next, { type: 'retry-due', at: T0 + 16_000, reading: null }, T0 + 16_000).effects).toEqual([]);
  });

  test('after a restart a session whose document an earlier daemon wrote is not armed again, however far it grew', () => {
    const restored = documentedCrossing(noHooks, T0, {
      path: doc.relative,
      executor: 'offline',
      successorCommand: 'pi "…"',
      atMs: T0 - MINUTE,
    });
    expect(restored.action).toBe(`handoff written (offline): ${doc.relative}`);
    expect(step(restored, judge(99, { firstSeen: true }), T0).effects).toEqual([]);
    expect(step(restored, { type: 'judge', trigger: 'grew', reading: reading(99) }, T0).effects).toEqual([]);
  });

  test('after a restart a session whose handoff an earlier daemon began and never finished is handed off at once, not held as old news', () => {
    const owed = { ...newCrossing(noHooks, T0), owed: true };
    expect(writes(step(owed, judge(98, { firstSeen: true }), T0).effects)).toHaveLength(1);
    expect(writes(step(newCrossing(noHooks, T0), judge(98, { firstSeen: true }), T0).effects)).toEqual([]);
  });
});
