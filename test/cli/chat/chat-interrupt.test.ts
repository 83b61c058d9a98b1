// Ctrl-C in the chat: it stops the reply in progress and keeps the session; a second Ctrl-C at an
// empty prompt, Ctrl-D or /exit leave.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../../support/fake-openai.js';
import { makeChatFixture, roles, type ChatFixture } from './chat-fixture.js';

describe('ai-zen chat: Ctrl-C and leaving', { timeout: 60_000 }, () => {
  let chat: ChatFixture;
  beforeEach(async () => {
    chat = await makeChatFixture();
  });
  afterEach(async () => {
    await chat.dispose();
  });

  it('Ctrl-C during a slow reply aborts the request and keeps the session; the next message works', async () => {
    chat.fake.enqueue(reply().text('Working on it, slowly').stall());
    const term = await chat.open();
    await chat.say('do something slow');
    await term.waitForScreen(/Working on it, slowly/);
    await term.sendKeys('C-c');
    await term.waitForScreen(/Interrupted\. The session is kept[^\n]*\n› ?\n── [^\n]*$/);
    expect(await term.isRunning()).toBe(true);

    // The session file is whole: every line valid, the interrupted request recorded.
    const [id] = await chat.sessionIds();
    expect(await chat.sessionIds()).toHaveLength(1);
    expect(roles(await chat.sessionLines(id!))).toEqual(['session', 'system*', 'user']);

    chat.fake.enqueue(reply().text('Back again, all fine.'));
    await chat.say('carry on');
    await term.waitForScreen(/Back again, all fine\.\n› ?\n── [^\n]*$/);
    const lines = await chat.sessionLines(id!);
    expect(roles(lines)).toEqual(['session', 'system*', 'user', 'user', 'assistant', 'usage']);
    // The model saw the whole conversation, the interrupted request included.
    expect(
      chat.fake.requests
        .at(-1)
        ?.messages.filter((message) => message.role === 'user')
        .map((message) => message.content),
    ).toEqual(['do something slow', 'carry on']);
  });

  it('a second Ctrl-C at an empty prompt leaves, and says how to carry on', async () => {
    const term = await chat.open();
    await term.sendKeys('C-c');
    await term.waitForScreen(/Ctrl-C again to leave[^\n]*\n› ?\n── [^\n]*$/);
    expect(await term.isRunning()).toBe(true);
    await term.sendKeys('C-c');
    expect(await term.waitForExit()).toBe(0);
    expect(await term.capture()).toMatch(/Session [\w-]+ saved\. Carry on later with: ai-zen --continue/);
  });

  it('Ctrl-D and /exit leave', async () => {
    let term = await chat.open();
    await term.sendKeys('C-d');
    expect(await term.waitForExit()).toBe(0);
    term = await chat.open(['--continue']);
    await chat.say('/exit');
    expect(await term.waitForExit()).toBe(0);
    // Both runs used the one session.
    expect(await chat.sessionIds()).toHaveLength(1);
  });
});
