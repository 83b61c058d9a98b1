// In the pure parts every agent's document goes through: the offline document's
// bounded first steps and portable paths, F4 against transcript dumps, the ⚠️ rules a document must
// carry (its own and a previous document's), and the read-back that never exceeds 16 KB.
import { describe, expect, it } from 'vitest';
import { localCommandEnvironment } from '../../src/handoff/checks/command-environment.js';
import { checkConstraints } from '../../src/handoff/checks/constraints-check.js';
import { commandProblems, type CommandEnvironment } from '../../src/handoff/checks/first-steps-check.js';
import { buildOfflineDocument } from '../../src/handoff/executors/offline-document.js';
import { portablePath, portableText } from '../../src/handoff/portable-paths.js';
import { isRevoked, rulesOfDocument } from '../../src/handoff/previous-document.js';
import { lastTurns, MAX_READ_BACK_BYTES, renderTurns, visibleTurns } from '../../src/handoff/visible-turns.js';
import type { AgentMessage } from '../../src/session/session-recorder.js';
import { cleanFacts } from '../support/clean-facts.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';

const ROOT = '/home/ada/work/parser';
const HOME = '/home/ada';
const places = { root: ROOT, home: HOME };
const facts = cleanFacts(ROOT);
const user = (content: string): AgentMessage => ({ message: { role: 'user', content } });
const assistant = (content: string, calls: { name: string; args: object }[] = []): AgentMessage => ({
  message: {
    role: 'assistant',
    content,
    ...(calls.length > 0
      ? {
          tool_calls: calls.map((call, index) => ({
            id: `c${index}`,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          })),
        }
      : {}),
  },
});
const section = (doc: string, marker: string) => (doc.split(`\n## ${marker}`)[1] ?? '').split('\n## ')[0]!;
const everywhere: CommandEnvironment = { programExists: () => true, pathExists: () => true, fileSize: () => 100 };

describe('documents a successor can trust (pure parts)', () => {
  it('paths: the project root becomes relative, the home folder ~, and a longer sibling folder is left alone', () => {
    expect(portablePath(`${ROOT}/src/a.ts`, places)).toBe('src/a.ts');
    expect(portablePath(ROOT, places)).toBe('.');
    expect(portablePath(`${HOME}/.claude/projects/x/s.jsonl`, places)).toBe('~/.claude/projects/x/s.jsonl');
    expect(portablePath('/etc/hosts', places)).toBe('/etc/hosts');
    expect(portableText(`edit \`${ROOT}/src/a.ts\`, run in ${ROOT}, see ${HOME}/notes and ${ROOT}-old/x and ${HOME}2`, places)).toBe(
      `edit \`src/a.ts\`, run in ., see ~/notes and ~/work/parser-old/x and ${HOME}2`,
    );
  });

  it('the offline document: bounded first steps, no transcript dump, no machine path (files, requests, header)', () => {
    const transcript = `${HOME}/.claude/projects/-home-ada-work-parser/6f1c.jsonl`;
    const doc = buildOfflineDocument({
      sections: HANDOFF_SECTIONS,
      messages: [user(`Fix ${ROOT}/src/parser.ts`), assistant('Fixed.', [{ name: 'write', args: { path: `${ROOT}/src/parser.ts` } }])],
      facts,
      factsBlock: 'branch main',
      sessionId: '6f1c2d3e-aaaa-bbbb-cccc-123456789abc',
      sessionFile: transcript,
      places,
    });
    expect(doc).not.toContain(ROOT);
    expect(doc).not.toContain(HOME);
    expect(doc).not.toContain(transcript);
    expect(doc).not.toMatch(/tail -n/);
    expect(doc).toContain('`src/parser.ts` — write');
    expect(doc).toContain('> Fix src/parser.ts');
    const steps = section(doc, '🔔');
    expect(steps).toContain('git status --short | head -n 40');
    expect(steps).toContain('ai-zen-daemon transcript 6f1c2d3e-aaaa-bbbb-cccc-123456789abc --last 20');
  });

  it('F4: a first step that prints a raw transcript, or cats a file over 16 KB, is refused with the bounded command to use', () => {
    const claude = commandProblems('tail -n 40 ~/.claude/projects/-x/6f1c.jsonl', everywhere);
    expect(claude.join('\n')).toContain('prints the raw transcript');
    expect(claude.join('\n')).toContain('ai-zen-daemon transcript <session id> --last 20');
    expect(commandProblems('cat .ai-zen/sessions/abc.jsonl', everywhere)).toHaveLength(1);
    const big = { ...everywhere, fileSize: () => 200_000 };
    expect(commandProblems('cat build.log', big).join('\n')).toContain('195 KB, over 16 KB');
    expect(commandProblems('cat build.log | tail -n 20', big)).toEqual([]);
    expect(commandProblems('git log --oneline -5', big)).toEqual([]);
    // ai-zen's own command counts as there, with nothing on PATH.
    expect(commandProblems('ai-zen-daemon transcript 6f1c --last 20', localCommandEnvironment('/nonexistent', ''))).toEqual([]);
  });

  it('a document whose ⚠️ says none although the user said "never add dependencies" fails, naming the rule; one that carries it passes', () => {
    const headings = HANDOFF_SECTIONS;
    const doc = (rules: string) =>
      `# Handoff\n\n${headings.map((heading) => `## ${heading}\n\n${heading.includes('⚠️') ? rules : 'x'}\n`).join('\n')}`;
    const rules = ['Never add dependencies.'];
    expect(checkConstraints(doc('None stated.'), headings, rules)).toEqual([
      `section "${headings.find((heading) => heading.includes('⚠️'))}" does not carry the user's rule "Never add dependencies." (write it there, in their words)`,
    ]);
    expect(checkConstraints(doc('- Do not add any new dependencies (the user said so).'), headings, rules)).toEqual([]);
    expect(checkConstraints(doc('- 不要修改公共接口。'), headings, ['不要修改公共接口。'])).toEqual([]);
  });

  it('a successor’s offline document names the previous document as such, and carries its rules unless the user revoked them', () => {
    const previousPath = '.ai-zen/handoffs/20261203-101010-6f1c2d3e.md';
    const previousDoc = `# Handoff\n\n## ⚠️ Constraints and preferences\n\nRules the user stated, in their words, in order:\n\n> Never add dependencies.\n\n> Keep the public API stable.\n\n## 📁 File index\n\n- x\n`;
    const carried = rulesOfDocument(previousDoc);
    expect(carried).toEqual(['Never add dependencies.', 'Keep the public API stable.']);
    const messages = [
      user(`Read the handoff document ${ROOT}/${previousPath} (the previous session's record) and continue the work from its breakpoint.`),
      assistant('Continuing.'),
      user('You may now change the public API, it is stable enough.'),
    ];
    const doc = buildOfflineDocument({
      sections: HANDOFF_SECTIONS,
      messages,
      facts,
      factsBlock: 'branch main',
      sessionId: 'next',
      sessionFile: 'x',
      places,
      previous: { path: previousPath, rules: carried },
    });
    const goal = section(doc, '🎯');
    expect(goal).toContain(`previous handoff document \`${previousPath}\``);
    expect(goal).toContain("The user's requests, in order, in their words (1)");
    expect(goal).not.toContain("(the previous session's record)");
    const rules = section(doc, '⚠️');
    expect(rules).toContain(`Carried from the previous handoff document \`${previousPath}\``);
    expect(rules).toContain('> Never add dependencies.');
    expect(rules).not.toContain('Keep the public API stable.');
    expect(isRevoked('Keep the public API stable.', ['You may now change the public API, it is stable enough.'])).toBe(true);
    expect(isRevoked('Never add dependencies.', ['You may now change the public API.'])).toBe(false);
  });

  it('the read-back: user and assistant turns with the tools they used, the newest kept, never over 16 KB', () => {
    const huge = 'y'.repeat(50_000);
    const messages: AgentMessage[] = [
      { message: { role: 'system', content: 'rules' }, definition: true },
      user('First request'),
      assistant('', [{ name: 'exec', args: { command: 'npm test' } }]),
      { message: { role: 'tool', content: huge, tool_call_id: 'c0' } },
      ...Array.from({ length: 30 }, (_, index) => [user(`request ${index} ${huge}`), assistant(`answer ${index}`)]).flat(),
    ];
    const turns = visibleTurns(messages);
    expect(turns[0]).toEqual({ role: 'user', text: 'First request' });
    expect(turns[1]).toEqual({ role: 'assistant', text: '[tools: exec npm test]' });
    expect(turns.some((turn) => turn.text.includes(huge))).toBe(false);
    const last = lastTurns(turns, 20);
    expect(last.at(-1)).toEqual({ role: 'assistant', text: 'answer 29' });
    const text = renderTurns('session x', last, turns.length);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_READ_BACK_BYTES);
    expect(text).toContain('earlier turns not shown');
  });
});
