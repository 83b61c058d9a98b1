// A `sessions` reply reads a session's state and the daemon's action on it at one moment. The
// ownership probe awaits a socket, and the watcher may read the file meanwhile: CI saw a reply pair
// "skipped" (the crossing's action) with the reading from before the crossing (no tokens, not over).
import { describe, expect, it } from 'vitest';
import type { DaemonCore } from '../../src/daemon/side-channels/daemon-core.js';
import { createIpcHandlers } from '../../src/daemon/side-channels/ipc-handlers.js';
import type { SessionState } from '../../src/daemon/watching/session-source.js';

const FILE = '/nowhere/.ai-zen/sessions/00000031-aaaa-4bbb-8ccc-dddddddddddd.jsonl';

const before: SessionState = {
  kind: 'ai-zen',
  file: FILE,
  sessionId: '00000031-aaaa-4bbb-8ccc-dddddddddddd',
  model: 'm',
  maxContextTokens: 1000,
  latestUsage: null,
  closed: false,
  successorId: null,
  overflowed: false,
  messageCount: 0,
  lastHandoff: null,
  skippedCount: 0,
  details: {},
};
const after: SessionState = { ...before, latestUsage: { prompt_tokens: 1400, completion_tokens: 1, total_tokens: 1401 }, overflowed: true };

describe('a session in a reply is one snapshot', () => {
  it('a line read while the ownership probe waits shows in the reply with the action it set', async () => {
    let current = before;
    let action: { owner: 'none'; action: string } | null = null;
    const core = {
      root: '/nowhere',
      watcher: { states: () => [current], state: () => current, refresh: async () => {} },
      committer: { list: () => [], settled: async () => {} },
      continued: { successors: async () => new Map(), previousOf: async () => null },
      migrator: { current: null },
      monitor: { actionFor: () => action, successorCommandFor: () => null },
      foreign: { idleOf: () => null },
      // The watcher reads the usage and the skip while this probe waits on its socket.
      isOwned: async () => {
        current = after;
        action = { owner: 'none', action: 'skipped by the user' };
        return false;
      },
      livenessKnown: () => false,
    } as unknown as DaemonCore;
    const reply = (await createIpcHandlers(core).sessions?.(undefined as never)) as {
      sessions: { promptTokens: number | null; overflowed: boolean; action: string | null }[];
    };
    expect(reply.sessions).toEqual([expect.objectContaining({ promptTokens: 1400, overflowed: true, action: 'skipped by the user' })]);
  });
});
