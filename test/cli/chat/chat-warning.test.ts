// S5: the chat warns before the window is full — the status line turns yellow at warnAt and one
// line says how to hand off now, once per crossing. A real pseudo-terminal against the fake model.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../../support/fake-openai.js';
import { makeChatFixture, type ChatFixture } from './chat-fixture.js';

const WARNING = /Context at \d+% of the window \(warning at 70%\): hand off now with \/migrate \[goal\], or \/handoff to keep going\./g;
const YELLOW_STATUS = /\u001b\[33m── \d+% context/;

describe('ai-zen chat: the warning before the window is full (S5)', { timeout: 60_000 }, () => {
  let chat: ChatFixture;
  beforeEach(async () => {
    chat = await makeChatFixture({ maxContextTokens: 10_000 });
    await fs.writeFile(path.join(chat.repo.root, '.ai-zen', 'config.json'), JSON.stringify({ maxContextTokens: 10_000, warnAt: 70 }));
  });
  afterEach(async () => {
    await chat.dispose();
  });

  const count = (screen: string) => [...screen.matchAll(WARNING)].length;

  it('S5 at warnAt the status line turns yellow and one line says how to hand off, once per crossing', async () => {
    const term = await chat.open([], { env: chat.env({ FORCE_COLOR: '1' }) });
    chat.fake.enqueue(reply().text('Below.').usage({ prompt_tokens: 5000, completion_tokens: 3 }));
    await chat.say('one');
    let screen = await term.waitForScreen(/Below\.\n› ?\n── [^\n]*$/);
    expect(count(screen)).toBe(0);
    expect(await term.capture({ escapes: true })).not.toMatch(YELLOW_STATUS);

    chat.fake.enqueue(reply().text('Over the warning.').usage({ prompt_tokens: 7200, completion_tokens: 3 }));
    await chat.say('two');
    screen = await term.waitForScreen(/Over the warning\.\n[^\n]*hand off now[^\n]*\n› ?\n── 7\d% context[^\n]*$/);
    expect(count(screen)).toBe(1);
    expect(await term.capture({ escapes: true })).toMatch(YELLOW_STATUS);

    // Still over: no second line for the same crossing.
    chat.fake.enqueue(reply().text('Still over.').usage({ prompt_tokens: 7600, completion_tokens: 3 }));
    await chat.say('three');
    screen = await term.waitForScreen(/Still over\.\n› ?\n── [^\n]*$/);
    expect(count(screen)).toBe(1);

    // Back under, then over again: a new crossing, a new line.
    chat.fake.enqueue(reply().text('Under again.').usage({ prompt_tokens: 3000, completion_tokens: 3 }));
    await chat.say('four');
    await term.waitForScreen(/Under again\.\n› ?\n── [^\n]*$/);
    chat.fake.enqueue(reply().text('Over again.').usage({ prompt_tokens: 8000, completion_tokens: 3 }));
    await chat.say('five');
    screen = await term.waitForScreen(/Over again\.\n[^\n]*hand off now[^\n]*\n› ?\n── [^\n]*$/);
    expect(count(screen)).toBe(2);
  });
});
