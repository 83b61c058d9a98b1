// S3: the model's own `handoff` tool — in the chat the person is asked first (the overflow
// selector's choices); with -p only when the config says "agentMayMigrate": true.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { trustProject } from '../../../src/config/trust.js';
import { contentText, reply, type RecordedRequest } from '../../support/fake-openai.js';
import { runCli } from '../../support/run-cli-in-process.js';
import { goodDocument, selfModel } from '../../handoff/harness.js';
import { makeChatFixture, type ChatFixture } from './chat-fixture.js';

function toolResult(requests: readonly RecordedRequest[], id: string): string {
  for (const request of requests) {
    const found = request.messages.find((message) => message.role === 'tool' && (message as { tool_call_id?: string }).tool_call_id === id);
    if (found) return contentText(found.content);
  }
  throw new Error(`no result for tool call ${id}`);
}

describe('S3 the agent hands off by itself', { timeout: 90_000 }, () => {
  let chat: ChatFixture;
  beforeEach(async () => {
    chat = await makeChatFixture();
  });
  afterEach(async () => {
    await chat.dispose();
  });

  it('S3 in the chat the person is asked first; Esc declines and the agent carries on; Enter migrates towards the goal', async () => {
    const term = await chat.open();
    chat.fake.enqueue(reply().tool('handoff', { goal: 'Write the docs' }, 'call-1'), reply().text('Carrying on here.'));
    await chat.say('my context feels polluted');
    await term.waitForScreen(/The agent asks to hand its work over to a fresh session towards: Write the docs\. Hand off\?/);
    await term.sendKeys('Escape');
    await term.waitForScreen(/Carrying on here\.\n› ?\n── /);
    expect(toolResult(chat.fake.requests, 'call-1')).toBe('The person declined the handoff. Carry on with the task in this session.');
    expect(await chat.sessionIds()).toHaveLength(1);

    const [oldId] = await chat.sessionIds();
    chat.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument('agent-asked handoff') })));
    chat.fake.enqueue(reply().tool('handoff', { goal: 'Write the docs' }, 'call-2'), reply().text('Handing off.'));
    await chat.say('please hand off');
    await term.waitForScreen(/The agent asks to hand its work over[\s\S]*The agent asks to hand its work over/);
    await term.sendKeys('Enter');
    await term.waitForScreen(/Migrated: now in session [\w-]+[^\n]*\n› ?\n── [^\n]*$/);
    expect(toolResult(chat.fake.requests, 'call-2')).toMatch(/^Agreed: the handoff starts as soon as this turn ends/);
    expect((await chat.sessionLines(oldId!)).find((line) => line.type === 'handoff')).toMatchObject({
      mode: 'migrate',
      executor: 'self',
      goal: 'Write the docs',
    });
    expect(await chat.latestId()).not.toBe(oldId);
  });

  it('S3 -p: refused unless "agentMayMigrate": true; then it migrates after the turn with the default executor', async () => {
    const config = path.join(chat.repo.root, '.ai-zen', 'config.json');
    const cli = (args: string[]) => runCli(args, { cwd: chat.repo.root, env: chat.env() });
    chat.fake.enqueue(reply().tool('handoff', {}, 'call-no'), reply().text('Not allowed; carrying on.'));
    const refused = await cli(['-p', 'hand off if you like']);
    expect(refused.code).toBe(0);
    expect(refused.stdout).toBe('Not allowed; carrying on.\n');
    expect(toolResult(chat.fake.requests, 'call-no')).toMatch(
      /^error: not allowed: with nobody to ask, the agent may hand off only when the config says "agentMayMigrate": true/,
    );
    const [first] = await chat.sessionIds();
    expect(await chat.sessionIds()).toHaveLength(1);

    await fs.mkdir(path.dirname(config), { recursive: true });
    await fs.writeFile(config, JSON.stringify({ agentMayMigrate: true, executor: 'offline' }));
    // Only a trusted repo's config may let the model migrate with nobody to ask.
    await trustProject(chat.repo.root, chat.env());
    chat.fake.enqueue(reply().tool('handoff', { goal: 'Finish the release notes' }, 'call-yes'), reply().text('Handing off.'));
    const allowed = await cli(['--continue', '-p', 'hand off now']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toBe('Handing off.\n');
    expect(toolResult(chat.fake.requests, 'call-yes')).toMatch(/^Agreed/);
    expect((await chat.sessionLines(first!)).at(-1)).toMatchObject({ type: 'migrated' });
    expect((await chat.sessionLines(first!)).find((line) => line.type === 'handoff')).toMatchObject({
      executor: 'offline',
      goal: 'Finish the release notes',
    });
  });
});
