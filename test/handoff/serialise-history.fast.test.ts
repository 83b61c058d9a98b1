import { describe, expect, it } from 'vitest';
import type { AgentMessage } from '../../src/session/session-recorder.js';
import { estimateTokens } from '../../src/agent/estimate-tokens.js';
import { serialiseHistory } from '../../src/handoff/serialise-history.js';

const big = (label: string, size = 3000) => `${label} ${'x'.repeat(size)}`;

function history(): AgentMessage[] {
  return [
    { message: { role: 'system', content: 'SYSTEM PROMPT: be careful' }, definition: true },
    { message: { role: 'user', content: 'first request' } },
    {
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'exec', arguments: '{"command":"ls"}' } }],
      },
    },
    { message: { role: 'tool', tool_call_id: 'c1', content: big('OLD TOOL OUTPUT') } },
    { message: { role: 'assistant', content: big('old answer', 1500) } },
    { message: { role: 'user', content: 'LAST REQUEST: fix the parser' } },
    {
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c2', type: 'function', function: { name: 'read', arguments: '{"path":"a.ts"}' } }],
      },
    },
    { message: { role: 'tool', tool_call_id: 'c2', content: big('NEW TOOL OUTPUT') } },
  ];
}

describe('serialised history for the summary executor (R10)', () => {
  it('R10 keeps everything when it fits', () => {
    const result = serialiseHistory(history(), 1_000_000);
    expect(result.shrunk).toBe(0);
    expect(result.dropped).toBe(0);
    expect(result.text).toContain('x'.repeat(3000));
  });

  it('R10 shrinks the oldest tool output first', () => {
    const full = serialiseHistory(history(), 1_000_000).tokens;
    const result = serialiseHistory(history(), full - 500);
    expect(result.shrunk).toBe(1);
    expect(result.text).toContain('OLD TOOL OUTPUT');
    expect(result.text).toMatch(/characters left out/);
    expect(result.text).toContain(big('NEW TOOL OUTPUT'));
    expect(result.tokens).toBeLessThanOrEqual(full - 500);
  });

  it('R10 the system prompt and the last user request always stay, however small the window', () => {
    const result = serialiseHistory(history(), 10);
    expect(result.text).toContain('SYSTEM PROMPT: be careful');
    expect(result.text).toContain('LAST REQUEST: fix the parser');
    expect(result.text).not.toContain('first request');
    expect(result.dropped).toBe(6);
    expect(result.text).toMatch(/messages left out to fit the window/);
  });

  it('estimates CJK text at about one token a character', () => {
    expect(estimateTokens('交接文档')).toBe(4);
  });
});
