import { promises as fs } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectPaths, type ProjectPaths } from '../../src/paths.js';
import type { ChatMessage } from '../../src/session/format.js';
import { ConversationContext } from '../../src/session/conversation-context.js';
import { SessionStore } from '../../src/session/store.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

const OLD_ID = 'a0a0a0a0-0000-4000-8000-000000000001';
const NEW_ID = 'b1b1b1b1-0000-4000-8000-000000000002';
const DOC = '.ai-zen/handoffs/20260102-030405-a0a0a0a0.md';
const AT = new Date('2026-01-02T03:04:05.000Z');

const system: ChatMessage = { role: 'system', content: 'You are a coding agent.' };
const rules: ChatMessage = { role: 'user', content: 'Project rules: never touch vendor/.' };
const breakpoint: ChatMessage = { role: 'user', content: DOC };

function ids(...sequence: string[]): () => string {
  return () => {
    const next = sequence.shift();
    if (!next) throw new Error('no more ids');
    return next;
  };
}

function parseLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);
}

describe('migration at the session level (R24–R27)', () => {
  let repo: TempRepo;
  let paths: ProjectPaths;
  let context: ConversationContext;

  beforeEach(async () => {
    repo = await makeTempRepo({ git: false });
    paths = projectPaths(repo.root);
    context = await ConversationContext.create({
      paths,
      model: 'gpt-test',
      maxContextTokens: 1000,
      now: () => AT,
      newId: ids(OLD_ID, NEW_ID),
    });
    await context.appendMessage(system, { definition: true });
    await context.appendMessage(rules, { definition: true });
    for (let turn = 0; turn < 5; turn += 1) {
      await context.appendMessage({ role: 'user', content: `request ${turn}` });
      await context.appendMessage({ role: 'assistant', content: `answer ${turn}` });
      await context.appendUsage({ prompt_tokens: 100 * (turn + 1), completion_tokens: 10, total_tokens: 100 * (turn + 1) + 10 });
    }
    await context.appendMessage({ role: 'user', content: 'write the handoff document' });
    await context.appendLine({
      type: 'handoff',
      at: AT.toISOString(),
      path: DOC,
      executor: 'self',
      mode: 'migrate',
      downgrades: [],
      cost: { requests: 1, prompt_tokens: 600, completion_tokens: 50 },
    });
  });
  afterEach(async () => {
    await context.close();
    await repo.cleanup();
  });

  it('R24 the new session holds exactly the definition messages and one breakpoint message, previousId = old id', async () => {
    const result = await context.migrate({ definitionMessages: [system, rules], breakpoint, docPath: DOC });
    expect(result).toEqual({ oldId: OLD_ID, newId: NEW_ID });
    const store = new SessionStore(paths);
    const newText = await fs.readFile(store.sessionFile(NEW_ID), 'utf8');
    expect(parseLines(newText)).toEqual([
      {
        type: 'session',
        v: 1,
        id: NEW_ID,
        createdAt: AT.toISOString(),
        cwd: repo.root,
        model: 'gpt-test',
        maxContextTokens: 1000,
        previousId: OLD_ID,
      },
      { type: 'message', message: system, definition: true },
      { type: 'message', message: rules, definition: true },
      { type: 'message', message: breakpoint },
    ]);
  });

  it('R26 the old file keeps every byte it had plus one migrated line naming the new id and the doc', async () => {
    await context.flush();
    const before = await fs.readFile(context.sessionFile);
    const oldFile = context.sessionFile;
    await context.migrate({ definitionMessages: [system, rules], breakpoint, docPath: DOC });
    const after = await fs.readFile(oldFile);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(parseLines(after.subarray(before.length).toString('utf8'))).toEqual([
      { type: 'migrated', at: AT.toISOString(), newId: NEW_ID, path: DOC },
    ]);
    const opened = await ConversationContext.open({ paths, id: OLD_ID });
    await opened.context.close();
    expect(opened.closed).toBe(true);
    expect(opened.messages).toHaveLength(13);
  });

  it('R25 the latest pointer names the new id and --continue lands in the new session', async () => {
    await context.migrate({ definitionMessages: [system, rules], breakpoint, docPath: DOC });
    expect(await new SessionStore(paths).readLatestPointer()).toEqual({ id: NEW_ID, previousId: OLD_ID });
    // The migrating context owns the new session (it holds its lock): let go of it before reopening.
    await context.close();
    const opened = await ConversationContext.openLatest({ paths });
    await opened?.context.close();
    expect(opened?.header.id).toBe(NEW_ID);
    expect(opened?.messages).toEqual([
      { message: system, definition: true },
      { message: rules, definition: true },
      { message: breakpoint },
    ]);
    expect(opened?.lastUsage).toBeNull();
    expect(opened?.closed).toBe(false);
  });

  it('R27 the context owns the id: after migrate an auto-save lands in the new file and the old one stays byte-identical', async () => {
    const oldFile = context.sessionFile;
    await context.migrate({ definitionMessages: [system, rules], breakpoint, docPath: DOC });
    expect(context.currentId).toBe(NEW_ID);
    expect(context.header.id).toBe(NEW_ID);
    expect(context.sessionFile).not.toBe(oldFile);
    const oldBytes = await fs.readFile(oldFile);
    await context.appendMessage({ role: 'user', content: 'carry on' });
    await context.appendUsage({ prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 });
    await context.flush();
    expect((await fs.readFile(oldFile)).equals(oldBytes)).toBe(true);
    const newLines = parseLines(await fs.readFile(context.sessionFile, 'utf8'));
    expect(newLines.slice(-2)).toEqual([
      { type: 'message', message: { role: 'user', content: 'carry on' } },
      { type: 'usage', usage: { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 } },
    ]);
  });

  it('R27 an append issued while migrate is running lands in the new file, one issued before in the old', async () => {
    const oldFile = context.sessionFile;
    const before = context.appendMessage({ role: 'assistant', content: 'last words of the old session' });
    const migrating = context.migrate({ definitionMessages: [system], breakpoint, docPath: DOC });
    const after = context.appendMessage({ role: 'user', content: 'first words of the new session' });
    await Promise.all([before, migrating, after]);
    const oldLines = parseLines(await fs.readFile(oldFile, 'utf8'));
    expect(oldLines.slice(-2)).toEqual([
      { type: 'message', message: { role: 'assistant', content: 'last words of the old session' } },
      { type: 'migrated', at: AT.toISOString(), newId: NEW_ID, path: DOC },
    ]);
    expect(parseLines(await fs.readFile(context.sessionFile, 'utf8')).at(-1)).toEqual({
      type: 'message',
      message: { role: 'user', content: 'first words of the new session' },
    });
  });

  it('the test pause hook is called at every stage, in order', async () => {
    const stages: string[] = [];
    await context.close();
    const opened = await ConversationContext.open({
      paths,
      id: OLD_ID,
      newId: ids(NEW_ID),
      pauseAt: async (stage) => {
        stages.push(stage);
      },
    });
    context = opened.context;
    await context.migrate({ definitionMessages: [system], breakpoint, docPath: DOC });
    expect(stages).toEqual(['before-archive', 'after-archive', 'after-new-session', 'after-migrated-line', 'after-pointer']);
  });

  it('a migration whose new id already exists fails and leaves the old session live and unclosed', async () => {
    await fs.writeFile(new SessionStore(paths).sessionFile(NEW_ID), 'someone else\n');
    const oldFile = context.sessionFile;
    await context.flush();
    const before = await fs.readFile(oldFile);
    await expect(context.migrate({ definitionMessages: [system], breakpoint, docPath: DOC })).rejects.toThrow(
      `session ${NEW_ID} already exists`,
    );
    expect(context.currentId).toBe(OLD_ID);
    expect((await fs.readFile(oldFile)).equals(before)).toBe(true);
    expect(await fs.readFile(new SessionStore(paths).sessionFile(NEW_ID), 'utf8')).toBe('someone else\n');
    await context.appendMessage({ role: 'user', content: 'still here' });
    await context.flush();
    expect(parseLines(await fs.readFile(oldFile, 'utf8')).at(-1)).toEqual({
      type: 'message',
      message: { role: 'user', content: 'still here' },
    });
  });

  it('openLatest follows a migrated line only to a successor that names this session as its predecessor', async () => {
    const oldFile = context.sessionFile;
    await context.close();
    const stranger = await ConversationContext.create({ paths, model: 'm', maxContextTokens: 10, newId: () => NEW_ID });
    await stranger.close();
    await fs.appendFile(oldFile, `${JSON.stringify({ type: 'migrated', at: AT.toISOString(), newId: NEW_ID, path: DOC })}\n`);
    await new SessionStore(paths).writeLatestPointer({ id: OLD_ID, previousId: null });
    const opened = await ConversationContext.openLatest({ paths });
    await opened?.context.close();
    expect(opened?.header.id).toBe(OLD_ID);
    expect(opened?.closed).toBe(true);
  });

  it('a closed context refuses appends with AiZenError session', async () => {
    await context.close();
    await expect(context.appendMessage({ role: 'user', content: 'x' })).rejects.toThrow(`session ${OLD_ID} is closed`);
  });
});
