// The overflow selector (R19) in a real pseudo-terminal: a reply past maxContextTokens offers a
// handoff by this agent (default), an independent summary, or Esc to skip.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../../support/fake-openai.js';
import { waitFor } from '../../support/wait-for.js';
import { goodDocument, isHandoffTurn, isSummaryCall, selfModel } from '../../handoff/harness.js';
import { makeChatFixture, READY, roles, type ChatFixture } from './chat-fixture.js';

const SELECTOR =
  /Context full: ([\d.k]+) of 5k tokens \((\d+)%\)\. Hand off to a fresh session\?\n❯ Hand off by this agent[^\n]*\n {2}Independent summary[^\n]*\n {2}Skip \(Esc\)[^\n]*\n[^\n]*Esc skip$/;

describe('ai-zen chat: the overflow selector (R19)', { timeout: 60_000 }, () => {
  let chat: ChatFixture;
  beforeEach(async () => {
    chat = await makeChatFixture({ maxContextTokens: 5000 });
  });
  afterEach(async () => {
    await chat.dispose();
  });

  it('R19 offers the selector after a reply over the window; Esc keeps everything; it comes back after the next reply; Enter migrates by this agent', async () => {
    chat.fake.enqueue(reply().text('First big answer.').usage({ prompt_tokens: 6000, completion_tokens: 10 }));
    const term = await chat.open();
    await chat.say('first');
    const shown = await term.waitForScreen(SELECTOR);
    expect(shown).toMatch(/First big answer\./);
    expect(shown.match(SELECTOR)?.slice(1)).toEqual(['6k', '120']);

    // Esc: skip. History and session stay as they are.
    const [id] = await chat.sessionIds();
    const before = await chat.sessionLines(id!);
    await term.sendKeys('Escape');
    await term.waitForScreen(/Skipped: the history stays as it is[^\n]*\n› ?\n── [^\n]*$/);
    // The one line added records the choice, for the daemon.
    await waitFor(async () => (await chat.sessionLines(id!)).length > before.length, { timeoutMs: 10_000, message: 'the skip line' });
    expect(await chat.sessionLines(id!)).toEqual([...before, { type: 'skip', at: expect.any(String), promptTokens: 6000 }]);
    expect(await chat.handoffDocs()).toEqual([]);
    expect(chat.fake.requests.filter(isHandoffTurn)).toHaveLength(0);
    // The status line says the context is over.
    expect(await term.capture()).toMatch(/── 12\d% context · [\d.k]+\/5k tokens/);

    // Still over after the next reply: the selector comes back; Enter takes the highlighted default.
    chat.fake.enqueue(reply().text('Second big answer.').usage({ prompt_tokens: 6500, completion_tokens: 10 }));
    chat.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument('overflow handoff by self') })));
    await chat.say('second');
    const again = await term.waitForScreen(SELECTOR);
    expect(again.match(SELECTOR)?.slice(1)).toEqual(['6.5k', '130']);
    await term.sendKeys('Enter');
    const screen = await term.waitForScreen(/Migrated: now in session [\w-]+[^\n]*\n› ?\n── [^\n]*$/);
    expect(screen).toMatch(/Hand off to a fresh session\? Hand off by this agent\nWriting handoff document…\n/);
    const doc = /Handoff document written \(self\)[^\n]*:\n(\.ai-zen\/handoffs\/[\w.-]+\.md)\n/.exec(screen)?.[1];
    expect(doc).toBeDefined();
    expect(await fs.readFile(path.join(chat.repo.root, doc!), 'utf8')).toContain('overflow handoff by self');

    // Migrated through the one service: old session closed, new one starts from the path alone.
    const newId = await chat.latestId();
    expect(newId).not.toBe(id);
    expect((await chat.sessionLines(id!)).at(-1)).toMatchObject({ type: 'migrated', newId, path: doc });
    expect(roles(await chat.sessionLines(newId))).toEqual(['session', 'system*', 'user']);
    // R25: the new session's context is measured afresh, well under the window.
    expect(screen).toMatch(/\n› ?\n── ~\d% context · ~[\d.k]+\/5k tokens[^\n]*$/);
  });

  it('R19 Down then Enter chooses the independent summary', async () => {
    chat.fake.enqueue(reply().text('Big answer.').usage({ prompt_tokens: 7000, completion_tokens: 10 }));
    chat.fake.handle((request) => (isSummaryCall(request) ? reply().text(goodDocument('overflow summary')) : undefined));
    const term = await chat.open();
    await chat.say('go');
    await term.waitForScreen(SELECTOR);
    await term.sendKeys('Down');
    await term.waitForScreen(/❯ Independent summary/);
    await term.sendKeys('Enter');
    const screen = await term.waitForScreen(/Migrated: now in session [\w-]+[^\n]*\n› ?\n── [^\n]*$/);
    expect(screen).toMatch(/Handoff document written \(summary\)/);
    expect(chat.fake.requests.filter(isSummaryCall)).toHaveLength(1);
    expect(await term.capture()).toMatch(READY);
  });

  it('R19 Esc followed at once by Enter still skips (it never takes the default)', async () => {
    chat.fake.enqueue(reply().text('Big answer.').usage({ prompt_tokens: 7000, completion_tokens: 10 }));
    const term = await chat.open();
    await chat.say('go');
    await term.waitForScreen(SELECTOR);
    await term.sendKeys('Escape', 'Enter');
    await term.waitForScreen(/Hand off to a fresh session\? Skip\nSkipped: the history stays as it is[^\n]*\n› ?\n── [^\n]*$/);
    expect(await chat.handoffDocs()).toEqual([]);
    expect(await chat.sessionIds()).toHaveLength(1);
  });
});
