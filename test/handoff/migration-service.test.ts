import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSessionText } from '../../src/session/store.js';
import { hang, httpError, reply } from '../support/fake-openai.js';
import { waitFor } from '../support/wait-for.js';
import { converse, docPathIn, goodDocument, isHandoffTurn, isSummaryCall, makeHarness, selfModel, type Harness } from './harness.js';

let harness: Harness | null = null;

afterEach(async () => {
  await harness?.dispose();
  harness = null;
});

async function setUp(options: Parameters<typeof makeHarness>[0] = {}): Promise<Harness> {
  harness = await makeHarness(options);
  return harness;
}

function linesOf(text: string) {
  return parseSessionText(text).lines.map((entry) => entry.line);
}

describe('self executor (R9, R17, R22, R28–R30)', () => {
  it('R9 self happy path: the agent writes the document with its write tool, the turn stays in the history', async () => {
    const h = await setUp();
    await converse(h);
    let busyDuringTurn = false;
    h.fake.handle(
      selfModel((docPath) => {
        busyDuringTurn = h.service.busy;
        return reply().tool('write', { path: docPath, content: goodDocument() }).usage({ prompt_tokens: 900, completion_tokens: 300 });
      }),
    );
    const outcome = await h.service.handoff({ mode: 'handoff' });

    expect(outcome.executor).toBe('self');
    expect(outcome.downgrades).toEqual([]);
    expect(outcome.path).toMatch(/^\.ai-zen\/handoffs\/\d{8}-\d{6}-[\w-]{8}\.md$/);
    expect(outcome.path).toContain(h.context.currentId.slice(0, 8));
    expect(await fs.readFile(path.join(h.root, outcome.path), 'utf8')).toBe(goodDocument());
    expect(busyDuringTurn).toBe(true);
    expect(h.service.busy).toBe(false);

    // R9: the instruction holds the skill body, the exact path and the fact block.
    const instruction = h.fake.requests.find((request) => isHandoffTurn(request))!.lastUserText;
    expect(instruction).toContain(`to exactly this path (relative to the project root): ${outcome.path}`);
    expect(instruction).toContain('## 💬 Conversation breakpoint');
    expect(instruction).toContain('Branch: `main`');
    // R17: the handoff turn stays in agent.messages (the user can ask for more detail afterwards).
    expect(
      h.agent.messages.some((entry) => entry.message.role === 'user' && String(entry.message.content).startsWith('[ai-zen handoff]')),
    ).toBe(true);
    expect(h.agent.messages.at(-1)?.message.content).toBe('Handoff written.');

    // R28–R30: the session records the handoff and what it cost.
    const handoffLine = linesOf(await h.sessionText()).find((line) => line.type === 'handoff');
    expect(handoffLine).toMatchObject({ type: 'handoff', path: outcome.path, executor: 'self', mode: 'handoff', downgrades: [] });
    expect(outcome.cost.requests).toBe(2);
    expect(outcome.cost.prompt_tokens).toBeGreaterThanOrEqual(900);
    expect(outcome.cost.completion_tokens).toBeGreaterThanOrEqual(300);
    expect((handoffLine as { cost: unknown }).cost).toEqual(outcome.cost);
    // R21, R23: the events of the catalogue, in order.
    expect(h.events.map((event) => event.name)).toEqual(['handoff.started', 'handoff.written']);
  });

  it('R17 a handoff can be repeated: a second one in the same session gets its own document', async () => {
    const h = await setUp();
    await converse(h);
    h.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument() })));
    const first = await h.service.handoff({ mode: 'handoff' });
    const second = await h.service.handoff({ mode: 'handoff' });
    expect(second.path).not.toBe(first.path);
    expect(await fs.readFile(path.join(h.root, first.path), 'utf8')).toBe(goodDocument());
  });

  it('R17 after a handoff the user can ask for more detail and the agent rewrites the same file', async () => {
    const h = await setUp();
    await converse(h);
    h.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument() })));
    const outcome = await h.service.handoff({ mode: 'handoff' });
    h.fake.handle((request) => {
      if (!request.lastUserText.startsWith('more detail in section 3')) return undefined;
      if (request.messages.at(-1)?.role === 'tool') return reply().text('Rewritten.');
      // The model still has the handoff turn in its context: it knows the path.
      const docPath = docPathIn(request)!;
      return reply().tool('write', { path: docPath, content: goodDocument('more detail') });
    });
    await h.agent.send('more detail in section 3');
    expect(await fs.readFile(path.join(h.root, outcome.path), 'utf8')).toBe(goodDocument('more detail'));
  });

  it('R12 edit, rm, mkdir, a write elsewhere, through ../ and through a symlinked folder are refused softly; files untouched; doc written', async () => {
    const h = await setUp();
    await fs.mkdir(path.join(h.root, 'src'));
    await fs.writeFile(path.join(h.root, 'src', 'a.ts'), 'export const a = 1;\n');
    const outside = path.join(path.dirname(h.root), 'outside');
    await fs.mkdir(outside);
    await fs.symlink(path.join(h.root, 'src'), path.join(h.root, 'linked'));
    await converse(h);
    const before = await fs.readFile(path.join(h.root, 'src', 'a.ts'), 'utf8');

    let refusals: string[] = [];
    h.fake.handle((request) => {
      if (!isHandoffTurn(request) || request.body?.tools === undefined) return undefined;
      const docPath = docPathIn(request)!;
      const toolResults = request.messages.filter((message) => message.role === 'tool');
      const handoffStart = request.messages.findIndex(
        (message) => message.role === 'user' && String(message.content).startsWith('[ai-zen handoff]'),
      );
      const inTurn = request.messages.slice(handoffStart).filter((message) => message.role === 'tool');
      if (inTurn.length === 0) {
        return reply()
          .tool('edit', { path: 'src/a.ts', old: 'a = 1', new: 'a = 2' })
          .tool('rm', { path: 'src/a.ts' })
          .tool('mkdir', { path: 'src/new-folder' })
          .tool('write', { path: 'src/notes.md', content: 'elsewhere' })
          .tool('write', { path: `../outside/${path.basename(docPath)}`, content: 'escaped' })
          .tool('write', { path: `linked/${path.basename(docPath)}`, content: 'through a symlinked folder' });
      }
      if (inTurn.length === 6) {
        refusals = inTurn.map((message) => String(message.content));
        return reply().tool('write', { path: docPath, content: goodDocument() });
      }
      void toolResults;
      return reply().text('Done.');
    });

    const outcome = await h.service.handoff({ mode: 'handoff' });
    expect(outcome.executor).toBe('self');
    expect(refusals).toHaveLength(6);
    for (const refusal of refusals) {
      expect(refusal).toMatch(/^Refused: /);
      expect(refusal).toContain(outcome.path);
    }
    expect(await fs.readFile(path.join(h.root, 'src', 'a.ts'), 'utf8')).toBe(before);
    await expect(fs.access(path.join(h.root, 'src', 'new-folder'))).rejects.toThrow();
    await expect(fs.access(path.join(h.root, 'src', 'notes.md'))).rejects.toThrow();
    expect(await fs.readdir(outside)).toEqual([]);
    await expect(fs.access(path.join(h.root, 'src', path.basename(outcome.path)))).rejects.toThrow();
    expect(await fs.readFile(path.join(h.root, outcome.path), 'utf8')).toBe(goodDocument());
    // R12: one-shot — after the handoff the guard is gone and tools work again.
    h.fake.enqueue(reply().tool('mkdir', { path: 'src/after' }), reply().text('ok'));
    await h.agent.send('make a folder');
    expect((await fs.stat(path.join(h.root, 'src', 'after'))).isDirectory()).toBe(true);
  });

  it('R11 a model that never writes: one retry, then the summary executor', async () => {
    const h = await setUp();
    await converse(h);
    let selfTurns = 0;
    h.fake.handle((request) => {
      if (isSummaryCall(request)) return reply().text(goodDocument('summary'));
      if (isHandoffTurn(request)) {
        selfTurns += 1;
        return reply().text('I will do it later.');
      }
      return undefined;
    });
    const outcome = await h.service.handoff({ mode: 'handoff' });
    expect(selfTurns).toBe(2);
    const corrective = h.fake.requests.filter((request) => isHandoffTurn(request) && request.body?.tools !== undefined)[1]!.lastUserText;
    expect(corrective).toMatch(/not done: the document was not written/);
    expect(outcome.executor).toBe('summary');
    expect(outcome.downgrades).toEqual([{ from: 'self', reason: 'the document was not written after one retry' }]);
    expect(h.events.map((event) => event.name)).toEqual(['handoff.started', 'handoff.downgraded', 'handoff.written']);
    expect(h.events[1]!.payload).toMatchObject({ from: 'self', to: 'summary' });
    expect(await fs.readFile(path.join(h.root, outcome.path), 'utf8')).toBe(`${goodDocument('summary').trim()}\n`);
    expect(outcome.cost.requests).toBe(3);
  });

  it('R22 a model that writes 10 bytes: one retry, then the summary executor', async () => {
    const h = await setUp();
    await converse(h);
    h.fake.handle((request) => (isSummaryCall(request) ? reply().text(goodDocument('summary')) : undefined));
    h.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: '# too short' })));
    const outcome = await h.service.handoff({ mode: 'handoff' });
    expect(outcome.executor).toBe('summary');
    expect(outcome.downgrades[0]).toEqual({ from: 'self', reason: 'the document is only 11 bytes (at least 400 needed) after one retry' });
    const handoffRequests = h.fake.requests.filter((request) => isHandoffTurn(request) && request.body?.tools !== undefined);
    expect(handoffRequests.at(-1)!.lastUserText).toMatch(/only 11 bytes/);
    expect((await fs.stat(path.join(h.root, outcome.path))).size).toBeGreaterThanOrEqual(400);
  });
});

describe('summary executor (R10)', () => {
  it('R10 one call without tools over the serialised history; the code writes the reply to the path', async () => {
    const h = await setUp();
    await converse(h, 'Please add a greeting file, in French');
    h.fake.handle((request) =>
      isSummaryCall(request)
        ? reply()
            .text(`\`\`\`markdown\n${goodDocument('résumé')}\n\`\`\``)
            .usage({ prompt_tokens: 500, completion_tokens: 200 })
        : undefined,
    );
    const outcome = await h.service.handoff({ mode: 'handoff', executor: 'summary' });
    expect(outcome.executor).toBe('summary');
    expect(outcome.cost).toEqual({ requests: 1, prompt_tokens: 500, completion_tokens: 200 });
    const call = h.fake.requests.find(isSummaryCall)!;
    expect(call.body.tools).toBeUndefined();
    expect(call.messages[0].role).toBe('system');
    expect(call.messages[0].content).toContain('## 🔔 First steps for the successor');
    expect(call.lastUserText).toContain('Please add a greeting file, in French');
    expect(call.lastUserText).toContain('→ write {"path":"hello.txt"');
    expect(call.lastUserText).toContain(outcome.path);
    // The fenced reply is unwrapped.
    expect(await fs.readFile(path.join(h.root, outcome.path), 'utf8')).toBe(`${goodDocument('résumé').trim()}\n`);
    // No handoff turn was added to the conversation.
    expect(h.agent.messages.some((entry) => String(entry.message.content).startsWith('[ai-zen handoff]'))).toBe(false);
  });

  it('R11 a failing summary call downgrades to offline, never upward', async () => {
    const h = await setUp();
    await converse(h);
    h.fake.handle((request) => (isSummaryCall(request) ? httpError(500) : undefined));
    const outcome = await h.service.handoff({ mode: 'handoff', executor: 'summary' });
    expect(outcome.executor).toBe('offline');
    expect(outcome.downgrades).toHaveLength(1);
    expect(outcome.downgrades[0]!.from).toBe('summary');
    expect(outcome.downgrades[0]!.reason).toMatch(/500/);
    expect(h.fake.requests.some((request) => isHandoffTurn(request) && request.body?.tools !== undefined)).toBe(false);
    const text = await fs.readFile(path.join(h.root, outcome.path), 'utf8');
    expect(text).toContain('> Add a greeting to hello.txt');
  });
});

describe('offline executor in the pipeline (X1)', () => {
  it('X1 with no model configured the handoff goes offline directly', async () => {
    const h = await setUp({ model: false });
    await h.agent.append({ role: 'user', content: 'Fix the flaky test' });
    const outcome = await h.service.handoff({ mode: 'handoff' });
    expect(outcome.executor).toBe('offline');
    expect(outcome.downgrades).toEqual([]);
    expect(outcome.cost).toEqual({ requests: 0, prompt_tokens: 0, completion_tokens: 0 });
    expect(h.fake.requests).toHaveLength(0);
    expect(await fs.readFile(path.join(h.root, outcome.path), 'utf8')).toContain('> Fix the flaky test');
  });
});

describe('migrate (R24–R27)', () => {
  it('R24 prune keeps only definition messages and the breakpoint; R25 lastUsage cleared and a new id', async () => {
    const h = await setUp();
    await converse(h);
    expect(h.agent.lastUsage).not.toBeNull();
    const oldId = h.context.currentId;
    const definitions = h.agent.messages.filter((entry) => entry.definition);
    h.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument() })));
    const outcome = await h.service.handoff({ mode: 'migrate' });

    expect(outcome.newSessionId).not.toBeNull();
    expect(outcome.newSessionId).not.toBe(oldId);
    expect(h.context.currentId).toBe(outcome.newSessionId);
    expect(h.agent.sessionId).toBe(outcome.newSessionId);
    expect(h.agent.lastUsage).toBeNull();
    // R24: definition messages + one breakpoint holding only the path (R4, R29).
    expect(h.agent.messages).toEqual([...definitions, { message: { role: 'user', content: outcome.path } }]);
    // The new session file says the same, and points back at the old one.
    const newLines = linesOf(await h.sessionText(outcome.newSessionId!));
    expect(newLines[0]).toMatchObject({ type: 'session', id: outcome.newSessionId, previousId: oldId });
    expect(newLines.slice(1)).toEqual([
      ...definitions.map((entry) => ({ type: 'message', message: entry.message, definition: true })),
      { type: 'message', message: { role: 'user', content: outcome.path } },
    ]);
    // The old session is whole: the conversation, the handoff turn, the handoff line, then `migrated`.
    const oldLines = linesOf(await h.sessionText(oldId));
    expect(oldLines.filter((line) => line.type === 'message').length).toBeGreaterThan(5);
    expect(oldLines.at(-2)).toMatchObject({ type: 'handoff', mode: 'migrate', path: outcome.path });
    expect(oldLines.at(-1)).toMatchObject({ type: 'migrated', newId: outcome.newSessionId, path: outcome.path });
    // The latest pointer names the new session.
    expect(JSON.parse(await fs.readFile(h.paths.latestPointer, 'utf8'))).toEqual({ id: outcome.newSessionId, previousId: oldId });
    expect(h.events.map((event) => event.name)).toEqual(['handoff.started', 'handoff.written', 'session.migrated']);
  });

  it('R27 an auto-save after migration writes to the new file and leaves the old one byte-identical', async () => {
    const h = await setUp();
    await converse(h);
    const oldId = h.context.currentId;
    h.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument() })));
    const outcome = await h.service.handoff({ mode: 'migrate' });
    const oldBytes = await h.sessionText(oldId);

    h.fake.enqueue(reply().text('Carrying on from the handoff document.'));
    await h.agent.send('carry on');
    expect(await h.sessionText(oldId)).toBe(oldBytes);
    const newLines = linesOf(await h.sessionText(outcome.newSessionId!));
    expect(newLines.some((line) => line.type === 'message' && line.message.content === 'carry on')).toBe(true);
    expect(newLines.some((line) => line.type === 'message' && line.message.content === 'Carrying on from the handoff document.')).toBe(
      true,
    );
    // The request after migration carried only the definitions, the breakpoint and the new message.
    const last = h.fake.requests.at(-1)!;
    expect(last.messages.map((message) => message.role)).toEqual(['system', 'user', 'user']);
    expect(last.messages[1].content).toBe(outcome.path);
  });

  it('R26 a failed handoff loses no history: the conversation and the session file stay, and a retry works', async () => {
    const h = await setUp({ model: false });
    await h.agent.append({ role: 'user', content: 'important request' });
    const id = h.context.currentId;
    const messagesBefore = [...h.agent.messages];
    // A handoffs folder that leads out of the project: nothing can be written.
    const outside = path.join(path.dirname(h.root), 'elsewhere');
    await fs.mkdir(outside);
    await fs.mkdir(h.paths.aiZen, { recursive: true });
    await fs.symlink(outside, h.paths.handoffs);
    const before = await h.sessionText(id);

    await expect(h.service.handoff({ mode: 'migrate' })).rejects.toMatchObject({ code: 'confinement' });
    expect(h.service.busy).toBe(false);
    expect(h.events.map((event) => event.name)).toEqual(['handoff.started', 'handoff.failed']);
    expect(h.context.currentId).toBe(id);
    expect(h.agent.messages).toEqual(messagesBefore);
    expect(await h.sessionText(id)).toBe(before);
    expect(await fs.readdir(outside)).toEqual([]);

    // Fixed, the same conversation migrates.
    await fs.rm(h.paths.handoffs);
    const outcome = await h.service.handoff({ mode: 'migrate' });
    expect(outcome.newSessionId).not.toBeNull();
    expect(linesOf(await h.sessionText(id)).some((line) => line.type === 'message' && line.message.content === 'important request')).toBe(
      true,
    );
  });

  it('R22 the in-flight request is aborted before the handoff starts', async () => {
    const h = await setUp({ model: false });
    h.fake.enqueue(hang());
    // Caught at once: the rejection arrives while the handoff is still running.
    const inFlight = h.agent.send('a slow request').then(
      () => null,
      (error: unknown) => error,
    );
    await waitFor(() => h.fake.requests.length === 1 && h.agent.busy);
    const outcome = await h.service.handoff({ mode: 'handoff' });
    expect(await inFlight).toMatchObject({ code: 'aborted' });
    expect(outcome.executor).toBe('offline');
    expect(await fs.readFile(path.join(h.root, outcome.path), 'utf8')).toContain('> a slow request');
  });

  it('a second handoff while one runs is refused, not queued', async () => {
    const h = await setUp();
    await converse(h);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    h.fake.handle(async (request) => {
      if (!isSummaryCall(request)) return undefined;
      await gate;
      return reply().text(goodDocument());
    });
    const first = h.service.handoff({ mode: 'handoff', executor: 'summary' });
    await waitFor(() => h.fake.requests.some(isSummaryCall));
    await expect(h.service.handoff({ mode: 'handoff' })).rejects.toThrow(/already running/);
    release();
    expect((await first).executor).toBe('summary');
  });
});
