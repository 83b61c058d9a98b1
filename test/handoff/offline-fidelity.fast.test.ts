// The offline executor passes F1–F4 by construction, quotes every request of the user in order
// (each cut to a bounded length), and puts the sentences that state a rule under ⚠️ — in English,
// German and Chinese.
import { describe, expect, it } from 'vitest';
import { buildOfflineDocument } from '../../src/handoff/executors/offline-document.js';
import { ruleSentences } from '../../src/handoff/rule-sentences.js';
import { cleanFacts } from '../support/clean-facts.js';
describe('offline document fidelity (F1–F4)', () => {
  it('F4 offline: a first step that cannot run here is left out', () => {
    const facts = cleanFacts('/r');
    const document = buildOfflineDocument({
      sections: ['💬 Breakpoint', '🔔 First steps'],
      messages: [],
      facts,
      factsBlock: 'facts',
      sessionId: 'abcdefgh',
      sessionFile: '.ai-zen/sessions/abcdefgh.jsonl',
      isRunnable: (command) => !command.startsWith('git '),
    });
    expect(document).not.toContain('git status');
    expect(document).toContain('ai-zen-daemon transcript abcdefgh --last 20');
    expect(
      buildOfflineDocument({
        sections: ['🔔 First steps'],
        messages: [],
        facts,
        factsBlock: 'f',
        sessionId: 'abcdefgh',
        sessionFile: 's',
        isRunnable: () => false,
      }),
    ).toContain('None: no command could be checked as runnable here.');
  });

  it('rule sentences are found by their words, in each language, once', () => {
    expect(ruleSentences(['Fix the bug. Never push to main! Only touch src/.', 'Never push to main!'])).toEqual([
      'Never push to main!',
      'Only touch src/.',
    ]);
    expect(ruleSentences(['Das Deployment muss grün bleiben.'])).toEqual(['Das Deployment muss grün bleiben.']);
    expect(ruleSentences(['修复这个错误。必须保持测试通过。'])).toEqual(['必须保持测试通过。']);
    expect(ruleSentences(['Rename the file.'])).toEqual([]);
  });
});
