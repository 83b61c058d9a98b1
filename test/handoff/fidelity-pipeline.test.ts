// F1–F4 on the real pipeline: the real agent and tools in a temp git repo, the fake model server,
// the migration service. A planted defect gets one corrective turn (self) or call (summary) naming
// it; what the final document still fails is recorded in the handoff line and the event.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSessionText } from '../../src/session/store.js';
import { reply, type RecordedRequest } from '../support/fake-openai.js';
import { converse, goodDocument, isHandoffTurn, isSummaryCall, lastMessageRole, makeHarness, type Harness } from './harness.js';

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.dispose();
  harness = null;
});

const PASSED = { sections: [], facts: [], files: [], commands: [] };

async function handoffLineOf(h: Harness) {
  return parseSessionText(await h.sessionText())
    .lines.map((entry) => entry.line)
    .find((line) => line.type === 'handoff') as Record<string, unknown>;
}

/** The self handoff turn: `first` for the instruction, `second` for the corrective turn. */
function selfInTwoTurns(first: (docPath: string) => string, second: (docPath: string) => string) {
  let turns = 0;
  let docPath = '';
  const corrections: string[] = [];
  const handler = (request: RecordedRequest) => {
    if (!isHandoffTurn(request) || request.body?.tools === undefined) return undefined;
    if (lastMessageRole(request) === 'tool') return reply().text('Handoff written.');
    turns += 1;
    const match = /(\.ai-zen\/handoffs\/[\w.-]+?\.md)/.exec(request.lastUserText);
    if (match?.[1]) docPath = match[1];
    if (turns > 1) corrections.push(request.lastUserText);
    return reply().tool('write', { path: docPath, content: turns === 1 ? first(docPath) : second(docPath) });
  };
  return { handler, corrections };
}

describe('fidelity checks in the pipeline (F1–F4)', () => {
  it('F1 F3 self: a document missing a section and a file gets one corrective turn naming both, and the fixed one is recorded as checked', async () => {
    const h = (harness = await makeHarness());
    await converse(h);
    const broken = goodDocument()
      .replace(/## ⚠️[^\n]*\n\n[^\n]*\n\n/, '')
      .replace(' hello.txt — written in this session.', '');
    const model = selfInTwoTurns(
      () => broken,
      () => goodDocument('fixed'),
    );
    h.fake.handle(model.handler);
    const outcome = await h.service.handoff({ mode: 'handoff' });

    expect(outcome.executor).toBe('self');
    expect(model.corrections).toHaveLength(1);
    expect(model.corrections[0]).toContain('section "⚠️ Constraints and preferences" is missing');
    expect(model.corrections[0]).toContain('`hello.txt` was changed in this session but the document does not name it');
    expect(await fs.readFile(path.join(h.root, outcome.path), 'utf8')).toContain('fixed');
    expect(outcome.checks).toEqual(PASSED);
    expect((await handoffLineOf(h)).checks).toEqual(PASSED);
    const written = h.events.find((event) => event.name === 'handoff.written');
    expect(written?.payload).toMatchObject({ checks: PASSED });
  });

  it('F2 F4 self: a wrong branch and a destructive first step not fixed by the corrective turn → downgrade to summary, whose document passes', async () => {
    const h = (harness = await makeHarness());
    await converse(h);
    const wrong = goodDocument()
      .replace('details for 📊 Current state.', 'Branch: `master`.')
      .replace('details for 🔔 First steps for the successor.', '\n\n```sh\ngit reset --hard\n```');
    const model = selfInTwoTurns(
      () => wrong,
      () => wrong,
    );
    h.fake.handle(model.handler);
    h.fake.handle((request) => (isSummaryCall(request) ? reply().text(goodDocument('summary')) : undefined));
    const outcome = await h.service.handoff({ mode: 'handoff' });

    expect(model.corrections[0]).toContain('the document says branch `master`; the branch is `main`');
    expect(model.corrections[0]).toContain('`git reset --hard` is destructive (discards uncommitted changes)');
    expect(outcome.executor).toBe('summary');
    expect(outcome.downgrades[0]?.reason).toMatch(/branch `master`.*after one retry$/);
    expect((await handoffLineOf(h)).checks).toEqual(PASSED);
  });

  it('F4 summary: an unrunnable first step gets one corrective call naming it, and the repaired reply is kept', async () => {
    const h = (harness = await makeHarness());
    await converse(h);
    const calls: RecordedRequest[] = [];
    const unrunnable = goodDocument('summary').replace('details for 🔔 First steps for the successor.', '\n\n1. `frobnicate --all`');
    h.fake.handle((request) => {
      if (!isSummaryCall(request)) return undefined;
      calls.push(request);
      return reply().text(calls.length === 1 ? unrunnable : goodDocument('summary repaired'));
    });
    const outcome = await h.service.handoff({ mode: 'handoff', executor: 'summary' });
    expect(outcome.executor).toBe('summary');
    expect(calls).toHaveLength(2);
    expect(calls[1]!.lastUserText).toContain('`frobnicate --all`: the program `frobnicate` is not on PATH nor a script in the repo');
    expect(await fs.readFile(path.join(h.root, outcome.path), 'utf8')).toContain('summary repaired');
    expect(outcome.checks).toEqual(PASSED);
  });

  it('F1–F4 offline: its document passes every check by construction, and the line records it', async () => {
    const h = (harness = await makeHarness({ model: false }));
    h.fake.enqueue(reply().tool('write', { path: 'src/a.ts', content: 'export const a = 1;\n' }), reply().text('ok'));
    await h.agent.send('start').catch(() => {});
    const outcome = await h.service.handoff({ mode: 'handoff' });
    expect(outcome.executor).toBe('offline');
    expect(outcome.checks).toEqual(PASSED);
    expect((await handoffLineOf(h)).checks).toEqual(PASSED);
  });
});
