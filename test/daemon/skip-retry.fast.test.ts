// R19: a crossing whose migration failed is tried again — unless the
// person then skipped it in the chat. The retry clock is the test's (fake timers): no waiting.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionMonitor, SKIPPED_IN_CHAT } from '../../src/daemon/handoffs/session-monitor.js';
import type { SessionState, SessionUpdate } from '../../src/daemon/watching/session-source.js';
import { MAX_RETRY_MS } from '../../src/daemon/handoffs/retry-backoff.js';
import { AiZenError } from '../../src/errors.js';
import { EventBus } from '../../src/events.js';
import { silentLogger } from '../../src/log/logger.js';
import { standInCommitter } from '../support/stand-in-committer.js';

const FILE = '/nowhere/.ai-zen/sessions/abcdef123456.jsonl';

function stateOf(declined: SessionState['declined']): SessionState {
  return {
    kind: 'ai-zen',
    file: FILE,
    sessionId: 'abcdef123456',
    model: 'm',
    maxContextTokens: 100,
    latestUsage: { prompt_tokens: 200, completion_tokens: 1, total_tokens: 201 },
    closed: false,
    successorId: null,
    overflowed: true,
    messageCount: 1,
    lastHandoff: null,
    skippedCount: 0,
    declined,
    details: {},
  };
}

function update(state: SessionState, previous: SessionState, overflowStarted: boolean): SessionUpdate {
  return {
    state,
    previous,
    reset: null,
    missing: false,
    bytesRead: 1,
    checkBytesRead: 0,
    linesRead: 1,
    skipped: [],
    overflowStarted,
    usageChanged: overflowStarted,
    handoffs: [],
    stamp: null,
  };
}

describe('R19 a skip stops the retries of a failed migration', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  async function failedCrossing() {
    let current = stateOf(null);
    const runs: string[] = [];
    const committer = standInCommitter();
    const monitor = new SessionMonitor({
      root: '/nowhere',
      events: new EventBus(() => {}),
      committer,
      migrator: {
        run: (request) => {
          runs.push(request.sessionId);
          return Promise.reject(new AiZenError('handoff', 'the handoffs folder is a symlink'));
        },
      },
      logger: silentLogger(),
      isOwned: async () => false,
      stateOf: () => current,
    });
    const below = { ...current, overflowed: false, latestUsage: null };
    monitor.handle(update(current, below, true), { initial: false });
    await vi.waitFor(() =>
      expect(monitor.actionFor(FILE)?.action).toMatch(/^failed: the handoffs folder is a symlink; tried again in 5 s/),
    );
    const skip = (): void => {
      const previous = current;
      current = stateOf({ at: '2026-12-03T07:00:00.000Z', promptTokens: 200 });
      monitor.handle(update(current, previous, false), { initial: false });
    };
    return { monitor, runs, skip };
  }

  it('R19 without a skip the failed crossing is tried again; after a skip line it never is', async () => {
    const control = await failedCrossing();
    await vi.advanceTimersByTimeAsync(5_000);
    await vi.waitFor(() => expect(control.runs).toHaveLength(2));

    const skipped = await failedCrossing();
    skipped.skip();
    expect(skipped.monitor.actionFor(FILE)).toEqual({ owner: 'none', action: SKIPPED_IN_CHAT });
    await vi.advanceTimersByTimeAsync(MAX_RETRY_MS * 2);
    expect(skipped.runs).toHaveLength(1);
    expect(skipped.monitor.actionFor(FILE)?.action).toBe(SKIPPED_IN_CHAT);
  });
});
