// F1–F4 through the built CLI in real processes: a planted defect is named to the model, the
// downgrade says why, and the session file records the final document's checks.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSessionText } from '../../src/session/store.js';
import { reply } from '../support/fake-openai.js';
import { runCli } from '../support/run-cli-in-process.js';
import { freshRepoAndModel } from '../support/repo-and-model.js';
import { goodDocument, isHandoffTurn, isSummaryCall } from '../handoff/harness.js';

const PASSED = { sections: [], facts: [], files: [], commands: [] };

describe('ai-zen handoff: fidelity checks (F1–F4)', { timeout: 60_000 }, () => {
  const each = freshRepoAndModel();

  const env = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: '' };
  const cli = (args: string[]) =>
    runCli(args, { cwd: each.repo.root, env: { ...env, AI_ZEN_HOME: each.repo.home, OPENAI_BASE_URL: each.fake.baseURL } });
  async function handoffLine() {
    const latest = JSON.parse(await fs.readFile(path.join(each.repo.root, '.ai-zen', 'latest-session.json'), 'utf8')) as { id: string };
    const text = await fs.readFile(path.join(each.repo.root, '.ai-zen', 'sessions', `${latest.id}.jsonl`), 'utf8');
    return parseSessionText(text)
      .lines.map((entry) => entry.line)
      .findLast((line) => line.type === 'handoff') as Record<string, unknown>;
  }

  it('F3 F4 a forgotten file and a destructive first step: named in the corrective turn, then summary repairs; the line records checked ✓', async () => {
    each.fake.enqueue(reply().tool('write', { path: 'src/lexer.ts', content: 'export {};\n' }), reply().text('Lexer written.'));
    expect((await cli(['-p', 'Write the lexer'])).code).toBe(0);
    const defective = goodDocument()
      .replace(' `hello.txt` — written in this session.', '')
      .replace('details for 🔔 First steps for the successor.', '\n\n```sh\nrm -rf src\n```');
    const corrections: string[] = [];
    each.fake.handle((request) => {
      if (!isHandoffTurn(request) || request.body?.tools === undefined) return undefined;
      if (request.messages.at(-1)?.role === 'tool') return reply().text('Handoff written.');
      if (request.lastUserText.includes('is not done')) corrections.push(request.lastUserText);
      const docPath =
        /(\.ai-zen\/handoffs\/[\w.-]+?\.md)/.exec(request.lastUserText)?.[1] ??
        /(\.ai-zen\/handoffs\/[\w.-]+?\.md)/.exec(JSON.stringify(request.messages))![1]!;
      return reply().tool('write', { path: docPath, content: defective });
    });
    each.fake.handle((request) =>
      isSummaryCall(request)
        ? reply().text(goodDocument('summary').replace('written in this session.', 'written; `src/lexer.ts` new.'))
        : undefined,
    );
    const result = await cli(['handoff', '--verbose']);

    expect(result.code).toBe(0);
    expect(corrections).toHaveLength(1);
    expect(corrections[0]).toContain('`src/lexer.ts` was changed in this session but the document does not name it');
    expect(corrections[0]).toContain('`rm -rf src` is destructive (deletes files)');
    expect(result.stderr).toMatch(
      /ai-zen: self handoff failed \(.*`rm -rf src` is destructive.*after one retry\); falling back to summary/,
    );
    expect(result.stderr).toContain('ai-zen: checked ✓');
    expect(await handoffLine()).toMatchObject({ executor: 'summary', checks: PASSED });
  });
});
