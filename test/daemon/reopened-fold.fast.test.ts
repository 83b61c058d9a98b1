// The daemon's reading of a `reopened` line (ai-zen migrate --undo) — the session is
// open again and no longer points at its successor; read while over its window, the line declines
// that crossing as a `skip` does, so the daemon does not migrate the session straight back.
import { describe, expect, it } from 'vitest';
import { emptyAiZenState, foldAiZenLine } from '../../src/daemon/watching/session-source-ai-zen.js';
import type { SessionState } from '../../src/daemon/watching/session-source.js';
import type { SessionLine } from '../../src/session/format.js';

const ID = 'c0c0c0c0-0000-4000-8000-000000000001';
const NEXT = 'd1d1d1d1-0000-4000-8000-000000000002';
const AT = '2026-12-04T05:00:00.000Z';

function fold(lines: SessionLine[]): SessionState {
  let state = emptyAiZenState(`/repo/.ai-zen/sessions/${ID}.jsonl`);
  for (const [index, line] of lines.entries()) {
    const next = foldAiZenLine(state, line, index + 1);
    if (typeof next === 'string') throw new Error(next);
    state = next;
  }
  return state;
}

const header: SessionLine = {
  type: 'session',
  v: 1,
  id: ID,
  createdAt: AT,
  cwd: '/repo',
  model: 'm',
  maxContextTokens: 1000,
  previousId: null,
};
const usage = (prompt: number): SessionLine => ({
  type: 'usage',
  usage: { prompt_tokens: prompt, completion_tokens: 1, total_tokens: prompt + 1 },
});
const migrated: SessionLine = { type: 'migrated', at: AT, newId: NEXT, path: '.ai-zen/handoffs/20261204-050000-c0c0c0c0.md' };
const reopened: SessionLine = { type: 'reopened', at: AT, from: NEXT };

describe('a reopened session, as the daemon reads it', () => {
  it('an undone migration over the window is open again, without a successor, and its crossing declined (no migration straight back)', () => {
    const state = fold([header, usage(1500), migrated, reopened]);
    expect(state).toMatchObject({ closed: false, successorId: null, overflowed: true, declined: { at: AT, promptTokens: 1500 } });
    // A usage at or below the window re-arms it; the next crossing is handed off as usual.
    expect(fold([header, usage(1500), migrated, reopened, usage(900)]).declined).toBeNull();
  });

  it('an undone migration under the window declines nothing', () => {
    expect(fold([header, usage(500), migrated, reopened])).toMatchObject({ closed: false, successorId: null, declined: null });
  });
});
