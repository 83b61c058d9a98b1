// What a typed line means (R16), and how context usage reads.
import { describe, expect, it } from 'vitest';
import { contextBar, formatTokens } from '../../../src/cli/chat/context-usage.js';
import { parseChatInput } from '../../../src/cli/chat/slash-commands.js';

describe('chat input', () => {
  it('R16 /handoff, /handoff summary, /migrate, /migration, /migrate self, /migrate summary', () => {
    expect(parseChatInput('/handoff')).toEqual({ kind: 'handoff', executor: null });
    expect(parseChatInput('/handoff summary')).toEqual({ kind: 'handoff', executor: 'summary' });
    expect(parseChatInput('/migrate')).toEqual({ kind: 'migrate', executor: null });
    expect(parseChatInput('/migration')).toEqual({ kind: 'migrate', executor: null });
    expect(parseChatInput('  /migrate self ')).toEqual({ kind: 'migrate', executor: 'self' });
    expect(parseChatInput('/migrate summary')).toEqual({ kind: 'migrate', executor: 'summary' });
    expect(parseChatInput('/migrate offline')).toEqual({ kind: 'migrate', executor: 'offline' });
    expect(parseChatInput('/migrate later please')).toMatchObject({ kind: 'invalid' });
  });

  it('other commands, unknown commands, and messages that merely start with a slash', () => {
    expect(parseChatInput('/status')).toEqual({ kind: 'status' });
    expect(parseChatInput('/help')).toEqual({ kind: 'help' });
    expect(parseChatInput('/exit')).toEqual({ kind: 'exit' });
    expect(parseChatInput('/quit')).toEqual({ kind: 'exit' });
    expect(parseChatInput('/nope')).toEqual({ kind: 'invalid', message: 'unknown command /nope — /help lists the commands' });
    expect(parseChatInput('/usr/bin/env is missing')).toEqual({ kind: 'message', text: '/usr/bin/env is missing' });
    expect(parseChatInput('   ')).toEqual({ kind: 'empty' });
    expect(parseChatInput('fix the bug')).toEqual({ kind: 'message', text: 'fix the bug' });
  });

  it('token counts and the context bar', () => {
    expect([950, 5000, 5010, 12_345, 128_000, 1_200_000].map(formatTokens)).toEqual(['950', '5k', '5k', '12.3k', '128k', '1.2M']);
    expect(contextBar(0, 10)).toBe('░'.repeat(10));
    expect(contextBar(50, 10)).toBe('█'.repeat(5) + '░'.repeat(5));
    expect(contextBar(130, 10)).toBe('█'.repeat(10));
  });
});
