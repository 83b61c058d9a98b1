// What a typed line means (R16), and how context usage reads.
import { describe, expect, it } from 'vitest';
import { contextBar, formatTokens } from '../../../src/cli/ai-zen/chat/context-usage.js';
import { parseChatInput } from '../../../src/cli/ai-zen/chat/slash-commands.js';

describe('chat input', () => {
  it('R16 /handoff, /handoff summary, /migrate, /migration, /migrate self, /migrate summary', () => {
    expect(parseChatInput('/handoff')).toEqual({ kind: 'handoff', executor: null, goal: null });
    expect(parseChatInput('/handoff summary')).toEqual({ kind: 'handoff', executor: 'summary', goal: null });
    expect(parseChatInput('/migrate')).toEqual({ kind: 'migrate', executor: null, goal: null });
    expect(parseChatInput('/migration')).toEqual({ kind: 'migrate', executor: null, goal: null });
    expect(parseChatInput('  /migrate self ')).toEqual({ kind: 'migrate', executor: 'self', goal: null });
    expect(parseChatInput('/migrate summary')).toEqual({ kind: 'migrate', executor: 'summary', goal: null });
    expect(parseChatInput('/migrate offline')).toEqual({ kind: 'migrate', executor: 'offline', goal: null });
  });

  it('S1 the executor word comes first; the rest of the line is the goal, as typed', () => {
    expect(parseChatInput('/migrate later please')).toEqual({ kind: 'migrate', executor: null, goal: 'later please' });
    expect(parseChatInput('/handoff summary Ship the CSV export, tests first')).toEqual({
      kind: 'handoff',
      executor: 'summary',
      goal: 'Ship the CSV export, tests first',
    });
    expect(parseChatInput('/migrate Self-review the parser')).toEqual({ kind: 'migrate', executor: null, goal: 'Self-review the parser' });
    expect(parseChatInput('/handoff offline   fix  the bug ')).toEqual({ kind: 'handoff', executor: 'offline', goal: 'fix  the bug' });
    // The fork writes only the idle handoff: in the chat it is a word of the goal.
    expect(parseChatInput('/handoff fork the parser')).toEqual({ kind: 'handoff', executor: null, goal: 'fork the parser' });
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
