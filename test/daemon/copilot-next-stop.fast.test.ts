// Copilot CLI often runs its Stop hook before it writes the turn's usage, so a crossing is seen after
// the Stop of the turn that made it. The crossing's state machine (foreign-crossing.ts), step by step
// with no timer: the next Stop takes it however long the person takes to prompt again, a closed
// Copilot gets the daemon's document, and a `-p` script's run gets it at once.
import { describe, expect, test } from 'vitest';
import {
  EXITED_REASON,
  newCrossing,
  SCRIPT_REASON,
  step,
  type CrossingAgent,
  type CrossingEffect,
  type CrossingEvent,
  type CrossingRecord,
} from '../../src/daemon/handoffs/foreign-crossing.js';
import type { Facts } from '../../src/probe/facts.js';

const T0 = Date.parse('2026-12-04T12:00:00Z');
const DEADLINE = 180_000;
const copilot: CrossingAgent = {
  kind: 'copilot',
  label: 'Copilot CLI',
  handoff: true,
  selfHooks: { mustAnswer: true },
  graceMs: 0,
  selfDeadlineMs: DEADLINE,
  stopsBeforeUsage: true,
};
const doc = { relative: '.ai-zen/handoffs/20261204-120000-1a2b3c4d.md', absolute: '/repo/.ai-zen/handoffs/20261204-120000-1a2b3c4d.md' };
const facts: Facts = {
  capturedAt: new Date(T0).toISOString(),
  root: '/repo',
  git: { known: false, why: 'test' },
  ports: { known: false, why: 'test' },
};
const judge: CrossingEvent = {
  type: 'judge',
  trigger: 'crossed',
  reading: {
    sessionId: '1a2b3c4d-0000-4000-8000-000000000000',
    percent: 85,
    handoffAt: 80,
    compactsAt: null,
    startedAtMs: null,
    firstSeen: false,
  },
};

function run(start: CrossingRecord, events: readonly (readonly [CrossingEvent, number])[]) {
  let record = start;
  let last: readonly CrossingEffect[] = [];
  for (const [event, at] of events) {
    const result = step(record, event, at);
    record = result.next;
    last = result.effects;
  }
  return { record, last };
}

const writes = (effects: readonly CrossingEffect[]) => effects.filter((effect) => effect.type === 'write');

/** The crossing seen after the Stop of its turn, in an interactive session whose hooks answered. */
function waiting(agent: CrossingAgent = copilot) {
  return run({ ...newCrossing(agent, T0), hooksAnswered: true }, [
    [judge, T0],
    [{ type: 'hooks-known', installed: true, live: true, scripted: false }, T0],
  ]);
}

describe('a Copilot crossing seen after its Stop is taken at the next Stop', () => {
  test('status says the end of the next turn takes it', () => {
    const { record } = waiting();
    expect(record.phase.name).toBe('awaiting-stop');
    expect(record.action).toBe("waiting for the end of Copilot CLI's next turn, to write the document itself (self)");
  });

  test('the self deadline passing while Copilot is open and waits for the person writes nothing: the next Stop still asks Copilot', () => {
    let { record } = waiting();
    // An hour of a person reading, thinking, away from the keyboard: twenty deadlines pass.
    for (let round = 1; round <= 20; round++) {
      if (record.phase.name !== 'awaiting-stop') throw new Error(`round ${round}: ${record.phase.name}`);
      const at = record.phase.deadline.at;
      const due = step(record, { type: 'deadline', at }, at);
      expect(due.effects).toEqual([{ type: 'ask-hooks' }]);
      const known = step(due.next, { type: 'hooks-known', installed: true, live: true, scripted: false }, at);
      expect(writes(known.effects)).toEqual([]);
      expect(known.effects).toEqual([{ type: 'arm', timer: 'deadline', at: at + DEADLINE }]);
      record = known.next;
    }
    const claimed = step(record, { type: 'claimed', doc, facts }, T0 + 3_600_000);
    expect(claimed.next.phase.name).toBe('awaiting-document');
    expect(claimed.next.action).toBe(`waiting for Copilot CLI to write ${doc.relative} (self)`);
  });

  test('Copilot closed before the person prompted again: the daemon writes the document when the deadline passes', () => {
    const { record } = waiting();
    if (record.phase.name !== 'awaiting-stop') throw new Error(record.phase.name);
    const at = record.phase.deadline.at;
    const gone = run(record, [
      [{ type: 'deadline', at }, at],
      [{ type: 'hooks-known', installed: true, live: false, scripted: false }, at],
    ]);
    expect(gone.record.phase.name).toBe('writing');
    expect(writes(gone.last)).toEqual([{ type: 'write', reason: EXITED_REASON, offline: false, byHand: false, trigger: 'threshold' }]);
  });

  test('a `copilot -p` script’s crossing is written for at once: its run is over and keeps its answer', () => {
    const script = run({ ...newCrossing(copilot, T0), hooksAnswered: true }, [
      [judge, T0],
      [{ type: 'hooks-known', installed: true, live: true, scripted: true }, T0],
    ]);
    expect(script.record.phase.name).toBe('writing');
    expect(writes(script.last)).toEqual([{ type: 'write', reason: SCRIPT_REASON, offline: false, byHand: false, trigger: 'threshold' }]);
  });

  test('an agent whose Stop sees its crossing keeps its deadline: past it, the daemon writes the document', () => {
    const other: CrossingAgent = { ...copilot, kind: 'claude-code', label: 'Claude Code', stopsBeforeUsage: false };
    const { record } = waiting(other);
    if (record.phase.name !== 'awaiting-stop') throw new Error(record.phase.name);
    const at = record.phase.deadline.at;
    const due = step(record, { type: 'deadline', at }, at);
    expect(due.next.phase.name).toBe('writing');
    expect(writes(due.effects)).toHaveLength(1);
  });
});
