// /status, /help, the status line under way, and reopening a session (--continue, --resume).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../../support/fake-openai.js';
import { goodDocument, selfModel } from '../../handoff/harness.js';
import { makeChatFixture, READY, type ChatFixture } from './chat-fixture.js';

describe('ai-zen chat: /status, /help and reopening', { timeout: 60_000 }, () => {
  let chat: ChatFixture;
  beforeEach(async () => {
    chat = await makeChatFixture({ maxContextTokens: 10_000 });
  });
  afterEach(async () => {
    await chat.dispose();
  });

  it('/status shows the context bar, the session id, the model and the last handoff; the status line shows the percentage', async () => {
    chat.fake.enqueue(reply().text('Noted.').usage({ prompt_tokens: 5000, completion_tokens: 3 }));
    const term = await chat.open();
    await chat.say('remember the plan');
    const afterReply = await term.waitForScreen(/Noted\.\n› ?\n── [^\n]*$/);
    // The line right by the prompt carries the percentage at all times.
    expect(afterReply).toMatch(/Noted\.\n› ?\n── 50% context · 5k\/10k tokens · test-model · [\w]{8} ──$/);

    const [id] = await chat.sessionIds();
    await chat.say('/status');
    let status = await term.waitForScreen(/Handoff +none yet\n› ?\n── [^\n]*$/);
    expect(status).toMatch(/Context +█{10}░{10} 50% {2}5k \/ 10k tokens/);
    expect(status).toContain(`Session  ${id} (.ai-zen/sessions/${id}.jsonl)`);
    expect(status).toMatch(/Model +test-model/);

    chat.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument() })));
    await chat.say('/handoff');
    const written = await term.waitForScreen(/Handoff document written \(self\):\n(\.ai-zen\/handoffs\/[\w.-]+\.md)\n› ?\n── [^\n]*$/);
    const doc = /written \(self\):\n(\S+)/.exec(written)![1]!;
    await chat.say('/status');
    status = await term.waitForScreen(
      new RegExp(`Handoff +${doc.replace(/[.]/g, '\\.')} \\(handoff, self, [^)]+\\) checked ✓\\n› ?\\n── [^\\n]*$`),
    );
    expect(status).toBeTruthy();

    await chat.say('/help');
    const help = await term.waitForScreen(/Keys\n[\s\S]*earlier input\n› ?\n── [^\n]*$/);
    for (const command of ['/handoff [summary|self|offline]', '/migrate [self|summary|offline]', '/status', '/help', '/exit'])
      expect(help).toContain(command);

    await chat.say('/frobnicate');
    await term.waitForScreen(/unknown command \/frobnicate — \/help lists the commands\n› ?\n── [^\n]*$/);
    await chat.say('/status please');
    await term.waitForScreen(/\/status takes no arguments\n› ?\n── [^\n]*$/);
  });

  it('--continue and --resume ID reopen a session, and the last handoff is known again', async () => {
    chat.fake.enqueue(reply().text('First answer.'));
    let term = await chat.open();
    await chat.say('first question');
    await term.waitForScreen(/First answer\.\n› ?\n── /);
    chat.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument() })));
    await chat.say('/handoff');
    await term.waitForScreen(/Handoff document written \(self\):\n\S+\n› ?\n── [^\n]*$/);
    const [doc] = await chat.handoffDocs();
    await term.sendKeys('C-d');
    expect(await term.waitForExit()).toBe(0);
    const [id] = await chat.sessionIds();

    term = await chat.open(['--resume', id!]);
    expect(await term.capture()).toMatch(
      new RegExp(`session ${id} \\(resumed, \\d+ messages\\)\\nWhere it left off:\\n› first question\\n {2}First answer\\.\\n`),
    );
    await chat.say('/status');
    await term.waitForScreen(new RegExp(`Handoff +${doc!.replace(/[.]/g, '\\.')} `));
    chat.fake.enqueue(reply().text('Second answer.'));
    await chat.say('second question');
    await term.waitForScreen(/Second answer\.\n› ?\n── /);
    // The model saw the whole earlier conversation, handoff turn included.
    const sent = chat.fake.requests.at(-1)!.messages.map((message) => message.content);
    expect(sent).toContain('first question');
    expect(sent).toContain('second question');
    await chat.say('/exit');
    expect(await term.waitForExit()).toBe(0);

    term = await chat.open(['--continue']);
    expect(await term.capture()).toMatch(new RegExp(`session ${id} \\(resumed`));
    expect(await chat.sessionIds()).toEqual([id]);
    expect(await term.capture()).toMatch(READY);
  });
});
