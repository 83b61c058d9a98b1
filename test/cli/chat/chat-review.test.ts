// S2: a /migrate in the chat pauses once the document is written — continue, open it in $EDITOR,
// or cancel — in a real pseudo-terminal, with EDITOR set to a script that edits the file.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../../support/fake-openai.js';
import { makeChatFixture, READY, roles, type ChatFixture } from './chat-fixture.js';

const REVIEW = /Start the new session from it\?/;
const DOC = /Handoff document written \(offline\)[^\n]*:\n(\.ai-zen\/handoffs\/[\w.-]+\.md)\n/;

describe('ai-zen chat: review before migrating (S2)', { timeout: 90_000 }, () => {
  let chat: ChatFixture;
  let editor: string;
  beforeEach(async () => {
    chat = await makeChatFixture();
    editor = path.join(chat.repo.home, 'edit-doc.sh');
    await fs.writeFile(editor, '#!/bin/sh\nprintf "\\nEdited by the person: start with the parser.\\n" >> "$1"\n', { mode: 0o755 });
  });
  afterEach(async () => {
    await chat.dispose();
  });

  async function migrateToReview(): Promise<string> {
    await chat.say('/migrate offline');
    await chat.term.waitForScreen(/Migrate\?[^\n]*\(y\/N\)/);
    await chat.term.type('y');
    await chat.term.sendKeys('Enter');
    const screen = await chat.term.waitForScreen(REVIEW);
    return DOC.exec(screen)![1]!;
  }

  it('S2 edit then continue: the edited document is what the successor gets', async () => {
    chat.fake.enqueue(reply().text('Working on it.'));
    const term = await chat.open([], { env: chat.env({ EDITOR: editor }) });
    await chat.say('fix the parser');
    await term.waitForScreen(/Working on it\.\n› ?\n── /);
    const [oldId] = await chat.sessionIds();
    const doc = await migrateToReview();
    // Nothing is migrated while the person looks.
    expect(await chat.sessionIds()).toEqual([oldId]);

    await term.sendKeys('Down', 'Enter');
    await term.waitForScreen(
      /edit-doc\.sh first \(then choose again\)\n\? Handoff document[^\n]*Start the new session from it\?\n❯ Continue/,
    );
    expect(await fs.readFile(path.join(chat.repo.root, doc), 'utf8')).toContain('Edited by the person: start with the parser.');
    await term.sendKeys('Enter');
    const screen = await term.waitForScreen(/Migrated: now in session [\w-]+[^\n]*\n› ?\n── [^\n]*$/);
    expect(screen).toMatch(READY);
    const newId = await chat.latestId();
    expect(newId).not.toBe(oldId);
    const newLines = await chat.sessionLines(newId);
    expect(roles(newLines)).toEqual(['session', 'system*', 'user']);
    expect(newLines[2]).toMatchObject({ message: { role: 'user', content: doc } });
    expect(await fs.readFile(path.join(chat.repo.root, doc), 'utf8')).toContain('Edited by the person');
  });

  it('S2 cancel: the session goes on untouched and the document stays', async () => {
    chat.fake.enqueue(reply().text('Working on it.'));
    const term = await chat.open([], { env: chat.env({ EDITOR: editor }) });
    await chat.say('fix the parser');
    await term.waitForScreen(/Working on it\.\n› ?\n── /);
    const [id] = await chat.sessionIds();
    const doc = await migrateToReview();
    await term.sendKeys('Down', 'Down', 'Enter');
    await term.waitForScreen(/Migration cancelled: this session goes on as it was\. The document stays at [^\n]+\n› ?\n── [^\n]*$/);
    expect(await chat.sessionIds()).toEqual([id]);
    expect(await chat.handoffDocs()).toEqual([doc]);
    const lines = await chat.sessionLines(id!);
    expect(lines.some((line) => line.type === 'migrated')).toBe(false);
    expect(lines.filter((line) => line.type === 'handoff')).toHaveLength(1);

    chat.fake.enqueue(reply().text('Still here with everything.'));
    await chat.say('go on');
    await term.waitForScreen(/Still here with everything\.\n› ?\n── /);
    const sent = chat.fake.requests.at(-1)!.messages.map((message) => message.content);
    expect(sent).toContain('fix the parser');
  });

  it('S2 ai-zen migrate --edit from the shell: an edit that empties the document is refused and nothing migrates; without a terminal --edit is one line, exit 2', async () => {
    chat.fake.enqueue(reply().text('Started.'));
    let term = await chat.open(['-p', 'start'], { waitForPrompt: false });
    expect(await term.waitForExit()).toBe(0);
    const [id] = await chat.sessionIds();
    const emptier = path.join(chat.repo.home, 'empty-doc.sh');
    await fs.writeFile(emptier, '#!/bin/sh\n: > "$1"\n', { mode: 0o755 });
    term = await chat.open(['migrate', '--yes', '--edit', '--executor', 'offline'], {
      env: chat.env({ VISUAL: emptier }),
      waitForPrompt: false,
    });
    await term.waitForScreen(REVIEW);
    await term.sendKeys('Down', 'Enter');
    await term.waitForScreen(
      /empty-doc\.sh first \(then choose again\)\n\? Handoff document[^\n]*Start the new session from it\?\n❯ Continue/,
    );
    await term.sendKeys('Enter');
    const screen = await term.waitForScreen(/ai-zen: the reviewed document is not usable \([^)]*\); nothing was migrated/);
    expect(screen).not.toMatch(/migrated to session/);
    expect(await term.waitForExit()).toBe(1);
    expect(await chat.sessionIds()).toEqual([id]);
    expect((await chat.sessionLines(id!)).some((line) => line.type === 'migrated')).toBe(false);

    const { runCli } = await import('../../support/run-cli.js');
    const piped = await runCli(['migrate', '--yes', '--edit'], { cwd: chat.repo.root, env: chat.env() });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toBe('ai-zen: --edit needs a terminal (it asks whether to continue, edit or cancel)\n');
  });
});
