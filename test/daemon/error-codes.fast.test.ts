// Code acts on an error's class and code, never on its wording.
import { describe, expect, it } from 'vitest';
import { SessionMonitor } from '../../src/daemon/handoffs/session-monitor.js';
import type { SessionState, SessionUpdate } from '../../src/daemon/watching/session-source.js';
import { AiZenError, SessionOwnedError } from '../../src/errors.js';
import { EventBus } from '../../src/events.js';
import { silentLogger } from '../../src/log/logger.js';
import { waitFor } from '../support/wait-for.js';
import { standInCommitter } from '../support/stand-in-committer.js';

function overflowed(file: string): SessionUpdate {
  const state: SessionState = {
    kind: 'ai-zen',
    file,
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
    details: {},
  };
  return {
    state,
    previous: { ...state, overflowed: false, latestUsage: null },
    reset: null,
    missing: false,
    bytesRead: 1,
    checkBytesRead: 0,
    linesRead: 1,
    skipped: [],
    overflowStarted: true,
    usageChanged: true,
    handoffs: [],
    stamp: null,
  };
}

function monitorWhoseMigrationFails(error: unknown): SessionMonitor {
  const committer = standInCommitter();
  return new SessionMonitor({
    root: '/nowhere',
    events: new EventBus(() => {}),
    committer,
    migrator: { run: () => Promise.reject(error) },
    logger: silentLogger(),
    isOwned: async () => false,
  });
}

describe('errors with codes', () => {
  it('SessionOwnedError is known by its class, whatever its wording', () => {
    const owned = new SessionOwnedError('abcdef123456', 'reworded entirely');
    expect(SessionOwnedError.isInstance(owned)).toBe(true);
    expect(AiZenError.isInstance(owned)).toBe(true);
    expect(owned.code).toBe('session');
    expect(SessionOwnedError.isInstance(new AiZenError('session', 'session abcdef12 is open in another ai-zen process'))).toBe(false);
    expect(SessionOwnedError.isInstance(new Error('x'))).toBe(false);
  });

  it('the daemon leaves a session to its owner on the error class, not on the message text', async () => {
    const reworded = monitorWhoseMigrationFails(new SessionOwnedError('abcdef123456', 'someone else has it'));
    reworded.handle(overflowed('/nowhere/a.jsonl'), { initial: false });
    await waitFor(() => reworded.actionFor('/nowhere/a.jsonl')?.action === 'left to its owner');
    expect(reworded.actionFor('/nowhere/a.jsonl')).toEqual({ owner: 'live', action: 'left to its owner' });

    const sameWordsOtherError = monitorWhoseMigrationFails(new AiZenError('session', 'session abcdef12 is open in another ai-zen process'));
    sameWordsOtherError.handle(overflowed('/nowhere/b.jsonl'), { initial: false });
    await waitFor(() => sameWordsOtherError.actionFor('/nowhere/b.jsonl')?.action?.startsWith('failed'));
    expect(sameWordsOtherError.actionFor('/nowhere/b.jsonl')?.owner).toBe('none');
  });
});
