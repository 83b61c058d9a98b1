// The daemon keeps each session's last readings (the sparkline of `top`) in a bounded ring.
import { describe, expect, it } from 'vitest';
import type { SessionState, SessionUpdate } from '../../src/daemon/watching/session-source.js';
import { UsageHistory } from '../../src/daemon/watching/usage-history.js';

const state = (promptTokens: number | null, window: number | null = 1000): SessionState => ({
  kind: 'claude-code',
  file: '/t/s.jsonl',
  sessionId: 's',
  model: 'm',
  maxContextTokens: window,
  latestUsage: promptTokens === null ? null : { prompt_tokens: promptTokens, completion_tokens: 1, total_tokens: promptTokens + 1 },
  closed: false,
  successorId: null,
  overflowed: false,
  messageCount: 1,
  lastHandoff: null,
  skippedCount: 0,
  details: {},
});

function update(current: SessionState, extra: Partial<SessionUpdate> = {}): SessionUpdate {
  return {
    state: current,
    previous: current,
    reset: null,
    missing: false,
    bytesRead: 1,
    checkBytesRead: 0,
    linesRead: 1,
    skipped: [],
    overflowStarted: false,
    usageChanged: true,
    handoffs: [],
    stamp: null,
    ...extra,
  };
}

describe('usage history', () => {
  it('keeps the last readings of a session, oldest first, bounded; marks compactions and handoff lines; forgets a file that is gone', () => {
    let clock = Date.parse('2026-12-04T04:00:00Z');
    const history = new UsageHistory(() => new Date((clock += 1000)), 3);
    for (const tokens of [100, 200, 300, 400]) history.record(update(state(tokens)));
    history.record(update(state(400), { usageChanged: false })); // nothing new: no reading
    history.record(update(state(null)));
    expect(history.readings('/t/s.jsonl').map((reading) => reading.percent)).toEqual([20, 30, 40]);
    history.record(update(state(50), { compactionsSeen: 1 }));
    history.record(update(state(60), { handoffs: [{ path: 'd.md', executor: 'self', mode: 'handoff', at: 'x' }] }));
    const readings = history.readings('/t/s.jsonl');
    expect(readings.map((reading) => [reading.percent, reading.compacted ?? false, reading.handoff ?? false])).toEqual([
      [40, false, false],
      [5, true, false],
      [6, false, true],
    ]);
    expect(readings.map((reading) => reading.at)).toEqual([...readings.map((reading) => reading.at)].sort());
    history.record(update(state(60), { missing: true }));
    expect(history.readings('/t/s.jsonl')).toEqual([]);
  });
});

describe('usage history after a start', () => {
  it('a reading read now from a file last written an hour ago is dated an hour ago, so top calls the session idle, not working', () => {
    const now = Date.parse('2026-12-04T04:00:00Z');
    const history = new UsageHistory(() => new Date(now));
    const written = now - 3600_000;
    history.record(update(state(300), { stamp: { size: 10, mtimeMs: written, ctimeMs: written, ino: 1 } }));
    expect(history.readings('/t/s.jsonl').map((reading) => reading.at)).toEqual([new Date(written).toISOString()]);
    // A clock that runs behind the file's time never dates a reading in the future.
    history.record(update(state(400), { stamp: { size: 20, mtimeMs: now + 60_000, ctimeMs: now, ino: 1 } }));
    expect(history.readings('/t/s.jsonl').at(-1)?.at).toBe(new Date(now).toISOString());
  });
});
