// /handoff and /migrate in the chat, in a real pseudo-terminal against the fake model (R16–R18, R21, R23).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../../support/fake-openai.js';
import { goodDocument, isHandoffTurn, isSummaryCall, selfModel } from '../../handoff/harness.js';
import { makeChatFixture, READY, roles, type ChatFixture } from './chat-fixture.js';

/** The path shown on a line of its own after a handoff (R23). */
const WRITTEN = /Handoff document written \((self|summary|offline)\)[^\n]*:\n(\.ai-zen\/handoffs\/[\w.-]+\.md)\n/;

function lastPath(screen: string): string {
  const matches = [...screen.matchAll(new RegExp(WRITTEN.source, 'g'))];
  const found = matches.at(-1)?.[2];
  if (!found) throw new Error(`no handoff path on screen:\n${screen}`);
  return found;
}

describe('ai-zen chat: /handoff and /migrate', { timeout: 60_000 }, () => {
  let chat: ChatFixture;
  beforeEach(async () => {
    chat = await makeChatFixture();
  });
  afterEach(async () => {
    await chat.dispose();
  });

  const read = (relative: string) => fs.readFile(path.join(chat.repo.root, relative), 'utf8');

  it('R16 R17 R21 R23 /handoff shows the progress hint, then the path on its own line; no question; repeatable; the agent can rewrite the same file', async () => {
    chat.fake.enqueue(reply().text('Hello, ready to work.'));
    const term = await chat.open();
    await chat.say('hello');
    await term.waitForScreen(/Hello, ready to work\.\n› ?\n── /);

    // The handoff turn waits for the test, so the hint can be seen while it works.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const handoffModel = selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument('first version') }));
    const removeHandler = chat.fake.handle(async (request) => {
      const answer = handoffModel(request);
      if (answer) await gate;
      return answer;
    });
    await chat.say('/handoff');
    const working = await term.waitForScreen(/Writing handoff document…/);
    expect(working).not.toMatch(WRITTEN);
    expect(working).not.toMatch(/\(y\/N\)/);
    release();
    const done = await term.waitForScreen(new RegExp(`${WRITTEN.source}(?:[^\\n]*\\n)*› ?\\n── [^\\n]*$`));
    const first = lastPath(done);
    expect(await chat.handoffDocs()).toEqual([first]);
    expect(await read(first)).toContain('first version');
    removeHandler();

    // R17: the handoff turn stayed in the conversation, so a follow-up refines the same file.
    chat.fake.enqueue(
      reply().tool('write', { path: first, content: goodDocument('more detail in section 3') }),
      reply().text('Section 3 has more detail now.'),
    );
    await chat.say('more detail in section 3');
    await term.waitForScreen(/Section 3 has more detail now\.\n› ?\n── /);
    const followUp = chat.fake.requests.at(-2)!;
    expect(
      followUp.messages.some(
        (message) =>
          typeof message.content === 'string' && message.content.startsWith('[ai-zen handoff]') && message.content.includes(first),
      ),
    ).toBe(true);
    expect(await read(first)).toContain('more detail in section 3');
    expect(await chat.handoffDocs()).toEqual([first]);

    // Repeatable: a second /handoff writes a second document; the session goes on (no migration).
    chat.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument('second handoff') })));
    await chat.say('/handoff');
    await term.waitForScreen(
      /Handoff document written[\s\S]*Handoff document written[^\n]*:\n\.ai-zen\/handoffs\/[\w.-]+\.md\n(?:[^\n]*\n)*› ?\n── [^\n]*$/,
    );
    const docs = await chat.handoffDocs();
    expect(docs).toHaveLength(2);
    const second = docs.find((doc) => doc !== first)!;
    expect(await read(second)).toContain('second handoff');
    expect(await chat.sessionIds()).toHaveLength(1);
    const [id] = await chat.sessionIds();
    const handoffLines = (await chat.sessionLines(id!)).filter((line) => line.type === 'handoff');
    expect(handoffLines.map((line) => (line as { path: string }).path)).toEqual([first, second]);
  });

  it('R16 /handoff summary writes the document with one independent call', async () => {
    chat.fake.enqueue(reply().text('Noted.'));
    const term = await chat.open();
    await chat.say('remember this');
    await term.waitForScreen(/Noted\.\n› ?\n── /);
    chat.fake.handle((request) => (isSummaryCall(request) ? reply().text(goodDocument('summary document')) : undefined));
    await chat.say('/handoff summary');
    const screen = await term.waitForScreen(new RegExp(`${WRITTEN.source}(?:[^\\n]*\\n)*› ?\\n── [^\\n]*$`));
    expect(screen).toMatch(/Writing handoff document… \(summary\)/);
    expect(screen).toMatch(/Handoff document written \(summary\):/);
    expect(await read(lastPath(screen))).toContain('summary document');
    // No handoff turn went through the agent's own tool loop.
    expect(chat.fake.requests.filter((request) => isHandoffTurn(request) && request.body?.tools !== undefined)).toHaveLength(0);
  });

  it('R18 /migrate asks first: no does nothing, yes migrates and shows the path', async () => {
    chat.fake.enqueue(reply().text('Working on the parser.'));
    const term = await chat.open();
    await chat.say('fix the parser');
    await term.waitForScreen(/Working on the parser\.\n› ?\n── /);
    const [oldId] = await chat.sessionIds();
    chat.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument('migration document') })));

    await chat.say('/migrate');
    await term.waitForScreen(/Migrate\?[^\n]*\(y\/N\)/);
    // It waits for the answer: nothing was written, nothing was asked of the model.
    expect(await chat.handoffDocs()).toEqual([]);
    expect(chat.fake.requests.filter(isHandoffTurn)).toHaveLength(0);
    await term.type('n');
    await term.sendKeys('Enter');
    await term.waitForScreen(/Not migrated; the conversation goes on\.\n› ?\n── [^\n]*$/);
    expect(await chat.handoffDocs()).toEqual([]);

    await chat.say('/migration');
    await term.waitForScreen(/Migrate\?[^\n]*\(y\/N\)$/);
    await term.type('y');
    await term.sendKeys('Enter');
    // S2: the written document is offered for review; Enter continues.
    await term.waitForScreen(/Start the new session from it\?\n❯ Continue/);
    await term.sendKeys('Enter');
    const screen = await term.waitForScreen(/Migrated: now in session [\w-]+[^\n]*\n› ?\n── [^\n]*$/);
    expect(screen).toMatch(/Writing handoff document…/);
    const doc = lastPath(screen);
    expect(await read(doc)).toContain('migration document');

    // The old session is closed with a migrated line; the new one starts from the path alone.
    const newId = await chat.latestId();
    expect(newId).not.toBe(oldId);
    expect(screen).toContain(`now in session ${newId}`);
    const oldLines = await chat.sessionLines(oldId!);
    expect(oldLines.at(-1)).toMatchObject({ type: 'migrated', newId, path: doc });
    const newLines = await chat.sessionLines(newId);
    expect(newLines[0]).toMatchObject({ type: 'session', previousId: oldId });
    expect(roles(newLines)).toEqual(['session', 'system*', 'user']);
    expect(newLines[2]).toMatchObject({ message: { role: 'user', content: doc } });

    // The chat goes on in the new session.
    chat.fake.enqueue(reply().text('Picked up from the handoff.'));
    await chat.say('carry on');
    await term.waitForScreen(/Picked up from the handoff\.\n› ?\n── /);
    expect(roles(await chat.sessionLines(newId))).toEqual(['session', 'system*', 'user', 'user', 'assistant', 'usage']);
    expect(await term.capture()).toMatch(READY);
  });

  it('R26 Ctrl-C during /handoff stops it, loses nothing, and a retry works', async () => {
    chat.fake.enqueue(reply().text('Halfway through.'));
    const term = await chat.open();
    await chat.say('start the work');
    await term.waitForScreen(/Halfway through\.\n› ?\n── /);
    const [id] = await chat.sessionIds();
    const stall = chat.fake.handle((request) => (isHandoffTurn(request) ? reply().text('Writing the docu').stall() : undefined));
    await chat.say('/handoff');
    await term.waitForScreen(/Writing handoff document…/);
    await term.sendKeys('C-c');
    await term.waitForScreen(/Handoff interrupted\. Nothing was lost; the conversation goes on\.\n› ?\n── [^\n]*$/);
    expect(await chat.handoffDocs()).toEqual([]);
    const lines = await chat.sessionLines(id!);
    expect(lines.some((line) => line.type === 'message' && line.message.content === 'start the work')).toBe(true);
    expect(lines.some((line) => line.type === 'handoff' || line.type === 'migrated')).toBe(false);

    stall();
    chat.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument('after the retry') })));
    await chat.say('/handoff');
    const screen = await term.waitForScreen(new RegExp(`${WRITTEN.source}› ?\\n── [^\\n]*$`));
    expect(await read(lastPath(screen))).toContain('after the retry');
    expect(await chat.sessionIds()).toEqual([id]);
  });

  it('X1 without a model the chat sends nothing, and /handoff still writes a document offline', async () => {
    const term = await chat.open([], { env: { AI_ZEN_HOME: chat.repo.home } });
    expect(await term.capture()).toMatch(/No model configured/);
    await chat.say('hello?');
    await term.waitForScreen(/No model configured, so nothing was sent[^\n]*\n› ?\n── [^\n]*$/);
    await chat.say('/handoff');
    const screen = await term.waitForScreen(new RegExp(`${WRITTEN.source}› ?\\n── [^\\n]*$`));
    expect(screen).toMatch(/Handoff document written \(offline\)/);
    expect(await chat.handoffDocs()).toEqual([lastPath(screen)]);
    expect(chat.fake.requests).toHaveLength(0);
  });
});
