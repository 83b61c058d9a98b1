import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectPaths, type ProjectPaths } from '../../src/paths.js';
import { ConversationContext } from '../../src/session/conversation-context.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

const ID = '11111111-2222-4333-8444-555555555555';
const CREATED = new Date('2026-01-02T03:04:05.678Z');

async function rawLines(file: string): Promise<unknown[]> {
  const text = await fs.readFile(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
}

describe('SPEC "Session file, version 1"', () => {
  let repo: TempRepo;
  let paths: ProjectPaths;

  beforeEach(async () => {
    repo = await makeTempRepo({ git: false });
    paths = projectPaths(repo.root);
  });
  afterEach(() => repo.cleanup());

  it('the session file is .ai-zen/sessions/<id>.jsonl and each line has the v1 shape', async () => {
    const context = await ConversationContext.create({
      paths,
      model: 'gpt-test',
      maxContextTokens: 128_000,
      now: () => CREATED,
      newId: () => ID,
    });
    expect(context.sessionFile).toBe(path.join(repo.root, '.ai-zen', 'sessions', `${ID}.jsonl`));
    await context.appendMessage({ role: 'system', content: 'You are a coding agent.' }, { definition: true });
    await context.appendMessage({ role: 'user', content: 'list the files' });
    const toolCall = { id: 'call_1', type: 'function' as const, function: { name: 'exec', arguments: '{"command":"ls"}' } };
    await context.appendMessage({ role: 'assistant', content: null, tool_calls: [toolCall] });
    await context.appendUsage({ prompt_tokens: 120, completion_tokens: 7, total_tokens: 127, prompt_tokens_details: { cached_tokens: 0 } });
    await context.appendMessage({ role: 'tool', tool_call_id: 'call_1', content: 'a.ts\n' });
    await context.appendMessage({ role: 'assistant', content: 'One file: a.ts' });
    await context.appendUsage({ prompt_tokens: 140, completion_tokens: 5, total_tokens: 145 });
    await context.close();

    expect(await rawLines(context.sessionFile)).toEqual([
      {
        type: 'session',
        v: 1,
        id: ID,
        createdAt: '2026-01-02T03:04:05.678Z',
        cwd: repo.root,
        model: 'gpt-test',
        maxContextTokens: 128_000,
        previousId: null,
      },
      { type: 'message', message: { role: 'system', content: 'You are a coding agent.' }, definition: true },
      { type: 'message', message: { role: 'user', content: 'list the files' } },
      { type: 'message', message: { role: 'assistant', content: null, tool_calls: [toolCall] } },
      { type: 'usage', usage: { prompt_tokens: 120, completion_tokens: 7, total_tokens: 127 } },
      { type: 'message', message: { role: 'tool', tool_call_id: 'call_1', content: 'a.ts\n' } },
      { type: 'message', message: { role: 'assistant', content: 'One file: a.ts' } },
      { type: 'usage', usage: { prompt_tokens: 140, completion_tokens: 5, total_tokens: 145 } },
    ]);
  });

  it('a non-definition message carries no definition field at all', async () => {
    const context = await ConversationContext.create({ paths, model: 'm', maxContextTokens: 10, newId: () => ID });
    await context.appendMessage({ role: 'user', content: 'hi' }, { definition: false });
    await context.close();
    const [, line] = await rawLines(context.sessionFile);
    expect(Object.keys(line as object)).toEqual(['type', 'message']);
  });

  it('the header names the previous session, and create sets the latest pointer', async () => {
    const previousId = 'aaaaaaaa-0000-4000-8000-000000000000';
    const context = await ConversationContext.create({ paths, model: 'm', maxContextTokens: 10, newId: () => ID, previousId });
    await context.close();
    const [header] = await rawLines(context.sessionFile);
    expect(header).toMatchObject({ id: ID, previousId });
    expect(JSON.parse(await fs.readFile(paths.latestPointer, 'utf8'))).toEqual({ id: ID, previousId });
  });

  it('a handoff line records where the document is, who wrote it and what it cost', async () => {
    const context = await ConversationContext.create({ paths, model: 'm', maxContextTokens: 10, newId: () => ID });
    const handoff = {
      type: 'handoff' as const,
      at: CREATED.toISOString(),
      path: '.ai-zen/handoffs/20260102-030405-11111111.md',
      executor: 'summary' as const,
      mode: 'handoff' as const,
      downgrades: [{ from: 'self' as const, reason: 'file too small after retry' }],
      cost: { requests: 3, prompt_tokens: 9000, completion_tokens: 800 },
    };
    await context.appendLine(handoff);
    await context.close();
    expect((await rawLines(context.sessionFile))[1]).toEqual(handoff);
  });

  it('refuses to record a message that is not an OpenAI chat message', async () => {
    const context = await ConversationContext.create({ paths, model: 'm', maxContextTokens: 10, newId: () => ID });
    await expect(context.appendMessage({ role: 'wizard' } as never)).rejects.toThrow();
    await context.close();
    expect(await rawLines(context.sessionFile)).toHaveLength(1);
  });
});
