// The daemon checks every session line it reads and every event it sends or receives with schemas
// compiled by zod's own compiler (src/compiled-schema.ts). A compiled schema must decide exactly as
// the schema it came from: the same lines kept, the same values out, the same reasons for a skip.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eventSchema, EventSchemas, type EventName } from '../../src/events.js';
import { SessionLine } from '../../src/session/format.js';
import { parseSessionLine } from '../../src/session/parse-line.js';

const ID = '11111111-2222-4333-8444-555555555555';
const header = {
  type: 'session',
  v: 1,
  id: ID,
  createdAt: '2026-01-02T03:04:05.678Z',
  cwd: '/r',
  model: 'm',
  maxContextTokens: 1000,
  previousId: null,
};
const usage = { prompt_tokens: 1200, completion_tokens: 7, total_tokens: 1207 };

/** Lines a session file may hold, good and bad, including what a hostile repo would plant. */
const LINES: unknown[] = [
  header,
  { ...header, previousId: ID, extra: { kept: true } },
  { ...header, id: '../../etc/passwd' },
  { ...header, v: 2 },
  { ...header, maxContextTokens: 0 },
  { ...header, maxContextTokens: 1.5 },
  { ...header, previousId: undefined },
  { type: 'message', message: { role: 'user', content: 'hi' } },
  { type: 'message', message: { role: 'system', content: 'rules' }, definition: true },
  { type: 'message', message: { role: 'system', content: 'rules' }, definition: false },
  {
    type: 'message',
    message: { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'exec', arguments: '{}' } }] },
  },
  {
    type: 'message',
    message: { role: 'assistant', tool_calls: [{ id: 'c', type: 'other', function: { name: 'exec', arguments: '{}' } }] },
  },
  { type: 'message', message: { role: 'tool', tool_call_id: 'c', content: [{ type: 'text', text: 'x' }] } },
  { type: 'message', message: { role: 'robot', content: 'hi' } },
  { type: 'usage', usage },
  { type: 'usage', usage: { ...usage, prompt_tokens_details: { cached_tokens: 3 } }, at: '2026-01-02T03:04:05.678Z' },
  { type: 'usage', usage: { ...usage, prompt_tokens: -1 } },
  { type: 'usage', usage: { ...usage, prompt_tokens: '1200' } },
  { type: 'usage', usage: { prompt_tokens: 1 } },
  { type: 'usage' },
  { type: 'handoff', path: 'docs/handoff/x.md', executor: 'offline', mode: 'migrate', at: '2026-01-02T03:04:05.678Z' },
  { type: 'handoff', path: 'docs/handoff/x.md', executor: 'telepathy', mode: 'migrate', at: '2026-01-02T03:04:05.678Z' },
  { type: 'migrated', newId: ID, at: '2026-01-02T03:04:05.678Z' },
  { type: 'migrated', newId: 'no/such id', at: '2026-01-02T03:04:05.678Z' },
  { type: 'skip', at: '2026-01-02T03:04:05.678Z', promptTokens: 1200 },
  { type: 'nonsense' },
  {},
  [],
  null,
  42,
];

const overflowed = { sessionId: ID, promptTokens: 1200, maxContextTokens: 1000, source: 'ai-zen' };
/** Payloads sent as events: each event's own shape, and ways to get one wrong. */
const PAYLOADS: unknown[] = [
  overflowed,
  { ...overflowed, agent: 'claude-code', transcript: '/t.jsonl', percent: 93, handoffAt: 90, compactsAt: null },
  { ...overflowed, smuggled: 'stripped' },
  { ...overflowed, promptTokens: '1200' },
  { sessionId: ID },
  { oldId: ID, newId: ID, path: 'docs/handoff/x.md' },
  { path: 'docs/handoff/x.md', commit: 'abc' },
  { path: 'docs/handoff/x.md', reason: 'the index is locked' },
  { message: 'boom' },
  { sessionId: ID, mode: 'migrate', executor: 'offline' },
  { sessionId: ID, mode: 'sideways', executor: 'offline' },
  null,
  'text',
];

function outcome(result: { success: boolean; data?: unknown; error?: { issues: unknown[] } }) {
  return result.success ? { ok: true, data: result.data } : { ok: false, issues: result.error?.issues };
}

describe('the schemas on the append → event path are compiled by zod and decide as zod does', () => {
  it('the session line schema and every event schema compile (a schema zod cannot compile would quietly fall back to the slow parse)', () => {
    expect(() => z.compile(SessionLine, { strict: true })).not.toThrow();
    for (const name of Object.keys(EventSchemas) as EventName[])
      expect(() => z.compile(EventSchemas[name], { strict: true }), name).not.toThrow();
  });

  it('a session line read by the daemon is kept, valued and skipped exactly as the session format schema says', () => {
    for (const value of LINES) {
      const text = JSON.stringify(value);
      const expected = SessionLine.safeParse(value);
      const parsed = parseSessionLine(text);
      if (expected.success) expect(parsed, text).toEqual({ ok: true, line: expected.data });
      else expect(parsed.ok, text).toBe(false);
      // The compiled parse gives the same value, or the same issues (so the same skip reason in the log).
      expect(outcome(z.compile(SessionLine).safeParse(value)), text).toEqual(outcome(expected));
    }
  });

  it('each event payload is accepted, stripped or refused exactly as the event catalogue says', () => {
    for (const name of Object.keys(EventSchemas) as EventName[]) {
      for (const payload of PAYLOADS) {
        const label = `${name} ${JSON.stringify(payload)}`;
        expect(outcome(eventSchema(name).safeParse(payload)), label).toEqual(outcome(EventSchemas[name].safeParse(payload)));
      }
    }
  });
});
