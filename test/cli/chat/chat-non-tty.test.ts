// Without a terminal on stdin or stdout, `ai-zen` behaves as -p (R20): the whole of stdin is the
// prompt, only the answer is printed, nothing waits for input, no colours, auto-migration is silent.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../../support/fake-openai.js';
import { CLI_PATH } from '../../support/run-cli.js';
import { runCli } from '../../support/run-cli-in-process.js';
import { startTmux } from '../../support/tmux.js';
import { goodDocument, isHandoffTurn, selfModel } from '../../handoff/harness.js';
import { makeChatFixture, READY, type ChatFixture } from './chat-fixture.js';

const ESCAPE = '\u001b';

describe('ai-zen without a terminal (R20) and colours', { timeout: 60_000 }, () => {
  let chat: ChatFixture;
  beforeEach(async () => {
    chat = await makeChatFixture({ maxContextTokens: 5000 });
  });
  afterEach(async () => {
    await chat.dispose();
  });

  it('R20 piped stdin and stdout: the whole stdin is the prompt and only the answer is printed', async () => {
    chat.fake.enqueue(reply().text('Forty-two.'));
    const result = await runCli([], { cwd: chat.repo.root, env: chat.env(), input: 'What is the answer?\nThink it over.\n' });
    expect(result).toMatchObject({ code: 0, stdout: 'Forty-two.\n', stderr: '' });
    expect(chat.fake.requests[0]?.lastUserText).toBe('What is the answer?\nThink it over.');
  });

  it('R20 piped: a reply over the window migrates with the default executor, silently, printing only the answer', async () => {
    chat.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument('silent migration') })));
    chat.fake.enqueue(reply().text('Done, and the context is full.').usage({ prompt_tokens: 6000, completion_tokens: 8 }));
    const result = await runCli([], { cwd: chat.repo.root, env: chat.env(), input: 'do the big thing' });
    expect(result).toMatchObject({ code: 0, stdout: 'Done, and the context is full.\n', stderr: '' });
    expect(chat.fake.requests.filter(isHandoffTurn).length).toBeGreaterThan(0);
    const [doc] = await chat.handoffDocs();
    expect(await fs.readFile(path.join(chat.repo.root, doc!), 'utf8')).toContain('silent migration');
    expect(await chat.sessionIds()).toHaveLength(2);
  });

  it('R20 a terminal on stdin but stdout redirected: no prompt, no colours, stdin up to Ctrl-D is the prompt', async () => {
    chat.fake.enqueue(reply().text('Redirected answer.'));
    const out = path.join(chat.repo.home, 'out.txt');
    const term = await startTmux({
      command: ['sh', '-c', `exec "$0" "$1" > "$2"`, process.execPath, CLI_PATH, out],
      cwd: chat.repo.root,
      env: chat.env(),
    });
    try {
      await term.type('explain the build');
      await term.sendKeys('Enter', 'C-d');
      expect(await term.waitForExit()).toBe(0);
      expect(await fs.readFile(out, 'utf8')).toBe('Redirected answer.\n');
      expect(chat.fake.requests[0]?.lastUserText).toBe('explain the build');
      expect(await term.capture()).not.toMatch(/›|context/);
    } finally {
      await term.kill();
    }
  });

  it('colours in a terminal, none with NO_COLOR', async () => {
    let term = await chat.open();
    expect(await term.capture({ escapes: true })).toContain(`${ESCAPE}[`);
    await term.sendKeys('C-d');
    await term.waitForExit();
    term = await chat.open(['--continue'], { env: chat.env({ NO_COLOR: '1' }) });
    expect(await term.capture()).toMatch(READY);
    expect(await term.capture({ escapes: true })).not.toContain(ESCAPE);
  });
});
