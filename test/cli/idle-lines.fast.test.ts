// What a person sees of an idle handoff beside Claude Code's own reading (the statusline) and in
// `status`: the cache warm and how long, then when the session was handed off while idle.
import { describe, expect, test } from 'vitest';
import { idleNote } from '../../src/cli/daemon/render.js';
import { readStatuslineFacts, statuslineText, type StatuslineReading } from '../../src/cli/daemon/statusline-line.js';
import type { SessionInfo } from '../../src/daemon/side-channels/status-schema.js';

const NOW = new Date(2026, 11, 5, 14, 0, 0);
const reading: StatuslineReading = {
  sessionId: 's',
  transcriptPath: '/t.jsonl',
  folder: '/repo',
  model: 'claude-opus-5-5',
  usedPercent: 40,
  contextWindowSize: 1_000_000,
  promptTokens: 400_000,
};
const answer = (idle: object | null) => ({ handoffAt: 70, compactsAt: null, lastDocumentAt: null, lastDocumentOfSession: false, idle });

describe('the statusline of an idle session', () => {
  test('cache warm · 12m left while it waits, then handed off while idle HH:MM', () => {
    const warm = readStatuslineFacts(answer({ cacheUntil: new Date(NOW.getTime() + 11.5 * 60_000).toISOString(), handedOffAt: null }))!;
    expect(statuslineText(reading, { kind: 'facts', facts: warm }, NOW)).toBe('ctx 40% · hands off 70% · cache warm · 12m left');
    const done = readStatuslineFacts(answer({ cacheUntil: null, handedOffAt: new Date(2026, 11, 5, 13, 45).toISOString() }))!;
    expect(statuslineText(reading, { kind: 'facts', facts: done }, NOW)).toBe('ctx 40% · hands off 70% · handed off while idle 13:45');
    // A cache that ran out says nothing; an older daemon's answer has no idle at all.
    const cold = readStatuslineFacts(answer({ cacheUntil: new Date(NOW.getTime() - 1).toISOString(), handedOffAt: null }))!;
    expect(statuslineText(reading, { kind: 'facts', facts: cold }, NOW)).toBe('ctx 40% · hands off 70%');
    expect(statuslineText(reading, { kind: 'facts', facts: readStatuslineFacts(answer(null))! }, NOW)).toBe('ctx 40% · hands off 70%');
  });

  test("status's note: only while the session waits with its cache warm", () => {
    const session = (idle: SessionInfo['idle']) => ({ idle }) as SessionInfo;
    const until = new Date(NOW.getTime() + 30 * 60_000).toISOString();
    expect(idleNote(session({ state: 'waiting', why: null, at: until, cacheUntil: until, document: null }), NOW.getTime())).toBe(
      'cache warm · 30m left',
    );
    expect(
      idleNote(session({ state: 'busy', why: 'running a tool', at: null, cacheUntil: null, document: null }), NOW.getTime()),
    ).toBeNull();
    expect(idleNote(session(undefined), NOW.getTime())).toBeNull();
  });

  test("status's note once handed off: /clear with what it starts with, and what resuming re-writes, priced when the price is known", () => {
    const handed = (onReturn: object | undefined) =>
      ({
        idle: { state: 'handed-off', why: null, at: NOW.toISOString(), cacheUntil: null, document: '.ai-zen/handoffs/x.md', onReturn },
      }) as SessionInfo;
    expect(idleNote(handed({ freshTokens: 21_700, resumeTokens: 412_000, resumeDollars: 3.296 }), NOW.getTime())).toBe(
      '/clear continues fresh (~22k tokens); resuming this session re-writes ~412k tokens (~$3.30)',
    );
    expect(idleNote(handed({ freshTokens: null, resumeTokens: 412_000, resumeDollars: null }), NOW.getTime())).toBe(
      '/clear continues fresh from it; resuming this session re-writes ~412k tokens',
    );
    // An older daemon's answer has no figures: the action alone says it was handed off.
    expect(idleNote(handed(undefined), NOW.getTime())).toBeNull();
  });
});
