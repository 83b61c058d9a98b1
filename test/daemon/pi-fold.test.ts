// For pi, the fold alone: the context it reports is the number pi's own code computes
// (`estimateContextTokens` of the installed client, 0.73.1: the last good reply's usage plus pi's
// estimate of every message after it), a compaction line clears it until the next reply, and a
// session whose header names another repo is foreign.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyPiState, foldPiLine, type PiFoldOptions } from '../../src/daemon/sources/pi/pi-fold.js';
import type { SessionState } from '../../src/daemon/watching/session-source.js';
import { agentClientPin, ensureAgentClient, installedPackage } from '../support/agent-clients.js';

const pin = agentClientPin('pi');
await ensureAgentClient(pin);
const piCompaction = (await import(path.join(installedPackage(pin), 'dist', 'core', 'compaction', 'compaction.js'))) as {
  estimateContextTokens(messages: unknown[]): { tokens: number };
};

const ROOT = '/work/repo';
const FILE = `/home/u/.pi/agent/sessions/--work-repo--/2026-12-04T07-37-02-984Z_01a23ffc-3507-75d7-b2b8-404ee8d06827.jsonl`;
const options: PiFoldOptions = { root: ROOT, handoffAt: 70, warnAt: 60, handoffAtTokens: null, contextWindow: null, models: {} };

const usage = (input: number, output: number, cacheRead = 0) => ({
  input,
  output,
  cacheRead,
  cacheWrite: 0,
  totalTokens: input + output + cacheRead,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});
const assistant = (content: unknown[], use: object, stopReason = 'stop') => ({
  role: 'assistant',
  content,
  api: 'anthropic-messages',
  provider: 'anthropic',
  model: 'claude-opus-4-7',
  usage: use,
  stopReason,
  timestamp: 1,
});
const messages = [
  { role: 'user', content: [{ type: 'text', text: 'fix the parser' }], timestamp: 1 },
  assistant([{ type: 'toolCall', id: 't1', name: 'read', arguments: { path: 'src/parse.ts' } }], usage(40_000, 30, 2_000), 'toolUse'),
  {
    role: 'toolResult',
    toolCallId: 't1',
    toolName: 'read',
    content: [{ type: 'text', text: 'x'.repeat(12_345) }],
    isError: false,
    timestamp: 2,
  },
  assistant([{ type: 'text', text: 'partial' }], usage(0, 0), 'aborted'),
  { role: 'bashExecution', command: 'npm test', output: 'y'.repeat(999), exitCode: 1, cancelled: false, truncated: false, timestamp: 3 },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'and the lexer' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ],
    timestamp: 4,
  },
  { role: 'custom', customType: 'ext', content: 'z'.repeat(401), display: false, timestamp: 5 },
];

function fold(lines: readonly object[]): SessionState {
  let state = emptyPiState(FILE, options);
  for (const line of lines) {
    const next = foldPiLine(state, { text: JSON.stringify(line), offset: 0, lineNumber: 1 } as never, options);
    if (typeof next === 'string') throw new Error(next);
    state = next;
  }
  return state;
}
const header = (cwd: string) => ({
  type: 'session',
  version: 3,
  id: '01a23ffc-3507-75d7-b2b8-404ee8d06827',
  timestamp: '2026-12-04T07:37:02.984Z',
  cwd,
});
const entry = (message: object, n: number) => ({ type: 'message', id: `e${n}`, parentId: n ? `e${n - 1}` : null, timestamp: 'T', message });

describe('pi fold', () => {
  it('pi: the context is pi’s own count — the last good reply’s usage plus pi’s estimate of each message since (tool results, `!` commands, images, extension messages), an aborted reply not a reading', () => {
    for (let upTo = 2; upTo <= messages.length; upTo += 1) {
      const shown = messages.slice(0, upTo);
      const state = fold([header(ROOT), ...shown.map(entry)]);
      expect(state.latestUsage?.prompt_tokens, `after ${upTo} messages`).toBe(piCompaction.estimateContextTokens(shown).tokens);
    }
    const state = fold([header(ROOT), ...messages.map(entry)]);
    expect(state).toMatchObject({
      sessionId: '01a23ffc-3507-75d7-b2b8-404ee8d06827',
      model: 'anthropic/claude-opus-4-7',
      maxContextTokens: 1_000_000,
    });
    expect(state.thresholds).toMatchObject({ handoffAt: 70, compactsAt: 98 });
  });

  it('pi: a compaction line counts one compaction and leaves the context unknown until the next reply; another repo’s session is foreign', () => {
    const compaction = {
      type: 'compaction',
      id: 'c1',
      parentId: 'e6',
      timestamp: '2026-12-04T08:00:00.000Z',
      summary: 's',
      firstKeptEntryId: 'e4',
      tokensBefore: 812_000,
    };
    const compacted = fold([header(ROOT), ...messages.map(entry), compaction]);
    expect(compacted.latestUsage).toBeNull();
    expect(compacted.compactions).toBe(1);
    expect(compacted.lastCompaction).toEqual({ at: '2026-12-04T08:00:00.000Z', preTokens: 812_000, trigger: null });
    const after = fold([
      header(ROOT),
      ...messages.map(entry),
      compaction,
      entry(assistant([{ type: 'text', text: 'on' }], usage(9_000, 10)), 9),
    ]);
    expect(after.latestUsage?.prompt_tokens).toBe(9_010);
    expect(fold([header('/work/repo-other'), entry(messages[1]!, 0)]).otherRepo).toBe(true);
    expect(fold([header(path.join(ROOT, 'sub')), entry(messages[1]!, 0)]).otherRepo).toBe(false);
  });
});
