// The status line under the prompt ("shows the context percentage at all times"), in a
// real pseudo-terminal: it sits on the row under the input line while the person types, edits,
// walks the history, wraps a long line or pastes, and leaves the transcript when the line is sent.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../../support/fake-openai.js';
import { CLI_PATH } from '../../support/run-cli.js';
import { startTmux } from '../../support/tmux.js';
import { makeChatFixture, READY, type ChatFixture } from './chat-fixture.js';

/** The status row: the percentage, the model, the session. */
const STATUS = String.raw`── ~?\d+% context · [^\n]*──`;

/**
 * The screen ends with the prompt row holding `input`, then the status row under it. (Trailing
 * blanks are allowed: capture-pane -J keeps the erased cells of a wrapped row as spaces.)
 */
function promptWith(input: string): RegExp {
  const escaped = input.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(String.raw`\n› ?${escaped} *\n${STATUS}$`);
}

function statusRows(screen: string): number {
  return screen.match(/% context · /g)?.length ?? 0;
}

/** The last two rows of the screen. */
function lastRows(screen: string): [string, string] {
  const rows = screen.split('\n');
  return [rows.at(-2)!, rows.at(-1)!];
}

describe('ai-zen chat: the status line under the prompt', { timeout: 60_000 }, () => {
  let chat: ChatFixture;
  beforeEach(async () => {
    chat = await makeChatFixture({ maxContextTokens: 10_000 });
  });
  afterEach(async () => {
    await chat.dispose();
  });

  it('sits on the row under the prompt, stays there while typing, editing, ↑/↓ and Ctrl-C, and leaves the transcript on Enter and Ctrl-D', async () => {
    const term = await chat.open();
    let screen = await term.capture();
    const [prompt, status] = lastRows(screen);
    expect(prompt).toMatch(/^› ?$/);
    expect(status).toMatch(new RegExp(`^${STATUS}$`));
    expect(status).toContain('test-model');

    await term.type('hello there');
    screen = await term.waitForScreen(promptWith('hello there'));
    expect(statusRows(screen)).toBe(1);

    // Enter: the submitted line is followed by the reply, with no stale status line between.
    chat.fake.enqueue(reply().text('Hi back.').usage({ prompt_tokens: 4200, completion_tokens: 3 }));
    await term.sendKeys('Enter');
    screen = await term.waitForScreen(/\nHi back\.\n› ?\n── [^\n]*──$/);
    expect(screen).toMatch(/\n› hello there\nHi back\.\n/);
    expect(statusRows(screen)).toBe(1);
    // The status under the new prompt is the fresh one.
    expect(lastRows(screen)[1]).toMatch(/^── 42% context · 4\.2k\/10k tokens · test-model · \w{8} ──$/);

    chat.fake.enqueue(reply().text('Second reply.').usage({ prompt_tokens: 4300, completion_tokens: 3 }));
    await chat.say('second one');
    screen = await term.waitForScreen(/\nSecond reply\.\n› ?\n── [^\n]*──$/);
    expect(screen).toMatch(/\n› second one\nSecond reply\.\n/);

    // History: readline redraws the input (clearing the screen under it); the status comes back.
    await term.sendKeys('Up');
    screen = await term.waitForScreen(promptWith('second one'));
    await term.sendKeys('Up');
    screen = await term.waitForScreen(promptWith('hello there'));
    await term.sendKeys('Down');
    screen = await term.waitForScreen(promptWith('second one'));
    expect(statusRows(screen)).toBe(1);

    // Editing mid-line redraws too.
    await term.sendKeys('BSpace', 'Left', 'Left', 'X');
    screen = await term.waitForScreen(promptWith('second Xon'));
    expect(statusRows(screen)).toBe(1);

    // Ctrl-C abandons the line: it stays visible with ^C, the status moves to the next prompt.
    await term.sendKeys('C-c');
    screen = await term.waitForScreen(/\n› second Xon\^C\n› ?\n── [^\n]*──$/);
    expect(statusRows(screen)).toBe(1);
    expect(chat.fake.requests).toHaveLength(2);

    // Ctrl-D leaves; the last status line goes with the prompt it was under.
    await term.sendKeys('C-d');
    expect(await term.waitForExit()).toBe(0);
    screen = await term.capture();
    expect(screen).toMatch(/\n› ?\nSession [\w-]+ saved\./);
    expect(statusRows(screen)).toBe(0);
  });

  it('a long input that wraps keeps the status under its last row; editing a pasted wrapped line leaves no copy behind', async () => {
    const term = await chat.open([], { width: 40 });
    const long = Array.from({ length: 25 }, (_, index) => `word${index}`).join(' ');
    // One chunk: readline echoes it as it is, wrapping over the old status row.
    await term.type(long);
    let screen = await term.waitForScreen(promptWith(long));
    expect(statusRows(screen)).toBe(1);

    await term.sendKeys('BSpace');
    screen = await term.waitForScreen(promptWith(long.slice(0, -1)));
    // The input is on the screen once (capture joins wrapped rows): no copy left above by a redraw.
    expect(screen.split(long.slice(0, 20)).length - 1).toBe(1);
    expect(statusRows(screen)).toBe(1);

    // Key by key across a row boundary (readline's own redraw path).
    await term.sendKeys('C-u');
    await term.waitForScreen(promptWith(''));
    for (const word of ['aaaaaaaaaa', 'bbbbbbbbbb', 'cccccccccc', 'dddddddddd']) await term.type(word);
    screen = await term.waitForScreen(promptWith('aaaaaaaaaabbbbbbbbbbccccccccccdddddddddd'));
    expect(statusRows(screen)).toBe(1);

    chat.fake.enqueue(reply().text('Wrapped and sent.'));
    await term.sendKeys('Enter');
    screen = await term.waitForScreen(/\nWrapped and sent\.\n› ?\n── [^\n]*$/);
    expect(screen).toMatch(/\n› aaaaaaaaaabbbbbbbbbbccccccccccdddddddddd *\nWrapped and sent\.\n/);
    expect(statusRows(screen)).toBe(1);
    expect(chat.fake.requests[0]?.lastUserText).toBe('aaaaaaaaaabbbbbbbbbbccccccccccdddddddddd');
  });

  it('a pasted block leaves its lines in the transcript and no status line between them', async () => {
    chat.fake.enqueue(reply().text('Got both lines.'));
    const term = await chat.open();
    await term.type('first pasted line\rsecond pasted line\r');
    const screen = await term.waitForScreen(/Got both lines\.\n› ?\n── [^\n]*──$/);
    expect(screen).toMatch(/\n› first pasted line\nsecond pasted line\nGot both lines\.\n/);
    expect(statusRows(screen)).toBe(1);
  });

  it('at the bottom of the screen the status line scrolls the screen up instead of covering the prompt', async () => {
    const term = await chat.open([], { height: 8 });
    for (let index = 1; index <= 4; index++) {
      chat.fake.enqueue(reply().text(`Reply number ${index}.`));
      await chat.say(`message ${index}`);
      const screen = await term.waitForScreen(new RegExp(`\\n› message ${index}\\nReply number ${index}\\.\\n› ?\\n── [^\\n]*──$`));
      expect(statusRows(screen)).toBe(1);
    }
    let screen = await term.capture();
    expect(screen.split('\n')).toHaveLength(8);
    await term.sendKeys('Up');
    screen = await term.waitForScreen(promptWith('message 4'));
    expect(screen).toMatch(/\nReply number 4\.\n› message 4\n── /);
    expect(screen.split('\n')).toHaveLength(8);
  });

  it('with NO_COLOR the status line is plain text under the prompt', async () => {
    const term = await chat.open([], { env: chat.env({ NO_COLOR: '1' }) });
    expect(await term.capture()).toMatch(READY);
    expect(await term.capture({ escapes: true })).not.toContain('\u001b[');
  });

  it('on TERM=dumb (no cursor moves) the status line is printed above the prompt instead', async () => {
    await using term = await startTmux({ command: ['env', 'TERM=dumb', process.execPath, CLI_PATH], cwd: chat.repo.root, env: chat.env() });
    const screen = await term.waitForScreen(new RegExp(`\\n${STATUS}\\n›$`));
    expect(statusRows(screen)).toBe(1);
    await term.sendKeys('C-d');
    expect(await term.waitForExit()).toBe(0);
  });
});
