// The offline executor passes F1–F4 by construction, quotes every request of the user in order
// (each cut to a bounded length), and puts the sentences that state a rule under ⚠️ — in English,
// German and Chinese.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_REQUEST_QUOTE } from '../../src/handoff/executors/offline-document.js';
import { documentSections } from '../../src/handoff/checks/document-sections.js';
import { reply } from '../support/fake-openai.js';
import { makeHarness, type Harness } from './harness.js';

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.dispose();
  harness = null;
});

const PASSED = { sections: [], facts: [], files: [], commands: [] };

describe('offline document fidelity (F1–F4)', () => {
  it('F1 F2 F3 F4 offline: every request quoted in order, the rules under ⚠️, and every check passes', async () => {
    const h = (harness = await makeHarness({ model: false }));
    await fs.mkdir(path.join(h.root, 'src'), { recursive: true });
    await fs.writeFile(path.join(h.root, 'src/old.ts'), 'export {};\n');
    const long = `Please also document the lexer. ${'x'.repeat(2 * MAX_REQUEST_QUOTE)}`;
    const requests = [
      'Add unicode identifiers to the lexer. Keep the public API stable.',
      'Bitte benenne die Datei um. Ändere niemals die Tests im Ordner fixtures.',
      '删除旧文件。不要修改公共接口。',
      long,
    ];
    h.fake.enqueue(
      reply().tool('write', { path: 'src/lexer.ts', content: 'export const lex = 1;\n' }).tool('exec', { command: 'false' }),
      reply().text('Lexer written; a command failed.'),
      reply().tool('rename', { from: 'src/lexer.ts', to: 'src/tokenizer.ts' }),
      reply().text('Renamed.'),
      reply().tool('rm', { path: 'src/old.ts' }),
      reply().text('Removed.'),
      reply().text('Noted.'),
    );
    for (const request of requests) await h.agent.send(request);
    const outcome = await h.service.handoff({ mode: 'handoff' });
    const document = await fs.readFile(path.join(h.root, outcome.path), 'utf8');

    expect(outcome.executor).toBe('offline');
    expect(outcome.checks).toEqual(PASSED);
    const sections = documentSections(document);
    const goal = sections.find((section) => section.heading.startsWith('🎯'))!.body;
    const positions = requests.map((request) => goal.indexOf(request.slice(0, 40)));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(goal).not.toContain('x'.repeat(MAX_REQUEST_QUOTE));
    expect(goal).toContain('more characters in the session file');
    const rules = sections.find((section) => section.heading.startsWith('⚠️'))!.body;
    expect(rules).toContain('> Keep the public API stable.');
    expect(rules).toContain('> Ändere niemals die Tests im Ordner fixtures.');
    expect(rules).toContain('> 不要修改公共接口。');
    expect(rules).not.toContain('unicode identifiers');
    for (const file of ['src/lexer.ts', 'src/tokenizer.ts', 'src/old.ts']) expect(document).toContain(file);
    expect(document).toContain('`false` — exit 1');
  });
});
