// S1 in the chat, in a real pseudo-terminal against the fake model: `/handoff <goal>` and
// `/migrate <executor> <goal>` write the document towards the goal and record it.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HandoffLine } from '../../../src/session/format.js';
import { reply } from '../../support/fake-openai.js';
import { goodDocument, isHandoffTurn, selfModel } from '../../handoff/harness.js';
import { makeChatFixture, type ChatFixture } from './chat-fixture.js';

const WRITTEN = /Handoff document written \((self|summary|offline)\)[^\n]*:\n(\.ai-zen\/handoffs\/[\w.-]+\.md)\n/;

describe('ai-zen chat: a handoff towards a goal (S1)', { timeout: 60_000 }, () => {
  let chat: ChatFixture;
  beforeEach(async () => {
    chat = await makeChatFixture();
  });
  afterEach(async () => {
    await chat.dispose();
  });

  it('S1 /handoff <goal>: the agent is told the goal and where it goes (🎯, 📋, 🔔); the handoff line records it', async () => {
    chat.fake.enqueue(reply().text('Parser fixed.'));
    const term = await chat.open();
    await chat.say('fix the parser');
    await term.waitForScreen(/Parser fixed\.\n› ?\n── /);
    chat.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument('towards the CSV export') })));
    await chat.say('/handoff Ship the CSV export, tests first');
    await term.waitForScreen(new RegExp(`${WRITTEN.source}(?:[^\\n]*\\n)*› ?\\n── [^\\n]*$`));

    const instruction = chat.fake.requests.find(isHandoffTurn)!.lastUserText;
    expect(instruction).toContain('"Ship the CSV export, tests first"');
    expect(instruction).toMatch(/🎯 task goal section states it/);
    expect(instruction).toMatch(/📋 not-done/);
    expect(instruction).toMatch(/🔔 first steps/);
    const [id] = await chat.sessionIds();
    const handoff = (await chat.sessionLines(id!)).find((line) => line.type === 'handoff') as HandoffLine;
    expect(handoff).toMatchObject({ mode: 'handoff', executor: 'self', goal: 'Ship the CSV export, tests first' });
  });

  it('S1 /migrate offline <goal>: the executor word first, the rest is the goal; the offline document states it under 🎯', async () => {
    const term = await chat.open([], { env: { AI_ZEN_HOME: chat.repo.home } });
    await chat.say('/migrate offline Rewrite the tokenizer in Rust');
    await term.waitForScreen(/Migrate\?[^\n]*\(y\/N\)/);
    await term.type('y');
    await term.sendKeys('Enter');
    // S2: the written document is offered for review; Enter continues.
    await term.waitForScreen(/Start the new session from it\?\n❯ Continue/);
    await term.sendKeys('Enter');
    const screen = await term.waitForScreen(/Migrated: now in session [\w-]+[^\n]*\n/);
    const doc = WRITTEN.exec(screen)![2]!;
    const text = await fs.readFile(path.join(chat.repo.root, doc), 'utf8');
    const goalSection = text.split('## ').find((section) => section.startsWith('🎯'))!;
    expect(goalSection).toContain('The next goal, named for this handoff:\n\n> Rewrite the tokenizer in Rust');
    expect(text.split('## ').find((section) => section.startsWith('📋'))).toContain('Rewrite the tokenizer in Rust');
  });
});
