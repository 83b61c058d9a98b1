// R14: the estimate ContextGuardPlugin measures a request by (the guard itself, with a model
// server, is in context-guard.test.ts).
import { describe, expect, it } from 'vitest';
import { estimatePromptTokens } from '../../src/agent/estimate-tokens.js';

describe('R14 ContextGuardPlugin', () => {
  const usage = (prompt_tokens: number) => ({ prompt_tokens, completion_tokens: 10, total_tokens: prompt_tokens + 10 });

  it('R14 without a measured usage (a new session, or after R25 cleared it) estimates every message', () => {
    const messages = [{ message: { role: 'user' as const, content: 'y'.repeat(4000) } }];
    expect(estimatePromptTokens({ messages, lastUsage: null })).toBeGreaterThan(1000);
    expect(estimatePromptTokens({ messages, lastUsage: usage(100), measuredMessageCount: 1 })).toBe(100);
  });
});
