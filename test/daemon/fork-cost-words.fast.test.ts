// What the fork executor's document cost, as the person reads it: in the notification of the idle
// handoff and on its `handoffs` line, in tokens and dollars — tokens only when the price is not known.
import { describe, expect, it } from 'vitest';
import { handoffLine } from '../../src/cli/daemon/render.js';
import { notificationFor } from '../../src/daemon/side-channels/daemon-notifications.js';

const ID = '1a2b3c4d-0000-4000-8000-000000000000';
const COST = { input: 180, output: 430, cacheRead: 123_000, cacheWrite5m: 0, cacheWrite1h: 900, dollars: 0.0411 };

describe('the fork executor says what its document cost', () => {
  it('the idle notification names the fork and its cost in tokens and dollars', () => {
    const written = notificationFor({
      name: 'handoff.written',
      payload: {
        sessionId: ID,
        mode: 'handoff',
        path: '.ai-zen/handoffs/x.md',
        absolutePath: '/repo/.ai-zen/handoffs/x.md',
        executor: 'fork',
        cost: { requests: 1, prompt_tokens: 124_080, completion_tokens: 430 },
        agent: 'claude-code',
        successorCommand: 'claude "Read …"',
        trigger: 'idle',
        idleReturn: { freshTokens: 22_000, resumeTokens: 400_000, resumeDollars: 3.2 },
        forkCost: COST,
      },
    });
    expect(written?.body).toContain('written by a fork of the session: fork cost 124k tokens in (123k cached) + 430 out (~$0.04)');
  });

  it('its handoffs line shows the cost, and tokens only when the model has no price', () => {
    const base = {
      path: '.ai-zen/handoffs/x.md',
      sessionId: ID,
      executor: 'fork',
      mode: 'handoff',
      at: '2026-12-05T08:00:00.000Z',
      state: 'pending',
      commit: null,
      reason: null,
      attempts: 0,
    } as const;
    expect(handoffLine({ ...base, forkCost: COST })).toBe(
      '.ai-zen/handoffs/x.md  fork  fork cost 124k tokens in (123k cached) + 430 out (~$0.04)  committing…',
    );
    expect(handoffLine({ ...base, forkCost: { ...COST, dollars: null } })).toBe(
      '.ai-zen/handoffs/x.md  fork  fork cost 124k tokens in (123k cached) + 430 out  committing…',
    );
  });
});
