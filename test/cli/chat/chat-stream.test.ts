// The chat in a real pseudo-terminal: a reply streams in as it arrives, tool calls are one line each.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../../support/fake-openai.js';
import { makeChatFixture, type ChatFixture } from './chat-fixture.js';

describe('ai-zen chat', { timeout: 60_000 }, () => {
  let chat: ChatFixture;
  beforeEach(async () => {
    chat = await makeChatFixture();
  });
  afterEach(async () => {
    await chat.dispose();
  });

  it('streams a reply as it arrives and shows each tool call as one compact line', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    chat.fake.enqueue(
      reply().tool('write', { path: 'notes.txt', content: 'hello\n' }),
      reply().text('First half of the answer. ').hold(gate).text('Second half, after the wait.'),
    );
    const term = await chat.open();
    await chat.say('write notes.txt please');
    const partial = await term.waitForScreen(/First half of the answer\./);
    expect(partial).not.toContain('Second half');
    expect(partial).toMatch(/✓ write notes\.txt \(6 bytes\)/);
    release();
    const done = await term.waitForScreen(/Second half, after the wait\.\n› ?\n── [^\n]*$/);
    expect(done).toMatch(/First half of the answer\. Second half, after the wait\./);
  });

  it('a pasted block of lines is one message', async () => {
    chat.fake.enqueue(reply().text('Got both lines.'));
    const term = await chat.open();
    await term.type('first pasted line\rsecond pasted line\r');
    await term.waitForScreen(/Got both lines\.\n› ?\n── /);
    expect(chat.fake.requests).toHaveLength(1);
    expect(chat.fake.requests[0]?.lastUserText).toBe('first pasted line\nsecond pasted line');
  });
});
