import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AiZenError } from '../../src/errors.js';
import { projectPaths, type ProjectPaths } from '../../src/paths.js';
import { ConversationContext } from '../../src/session/conversation-context.js';
import { parseSessionLine } from '../../src/session/parse-line.js';
import { SessionStore } from '../../src/session/store.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';
import { memoryLogger } from '../support/memory-logger.js';

const ID = '0f0f0f0f-1111-4222-8333-444444444444';
const header = {
  type: 'session',
  v: 1,
  id: ID,
  createdAt: '2026-01-01T00:00:00.000Z',
  cwd: '/x',
  model: 'm',
  maxContextTokens: 100,
  previousId: null,
};
const user = { type: 'message', message: { role: 'user', content: 'hello' } };
const assistant = { type: 'message', message: { role: 'assistant', content: 'hi' } };
const usage = { type: 'usage', usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } };
const json = (value: unknown): string => JSON.stringify(value);

describe('reading a session file never crashes on a bad line (SPEC: readers skip and log)', () => {
  let repo: TempRepo;
  let paths: ProjectPaths;

  async function writeSession(text: string): Promise<string> {
    await fs.mkdir(paths.sessions, { recursive: true });
    const file = path.join(paths.sessions, `${ID}.jsonl`);
    await fs.writeFile(file, text);
    return file;
  }

  beforeEach(async () => {
    repo = await makeTempRepo({ git: false });
    paths = projectPaths(repo.root);
  });
  afterEach(() => repo.cleanup());

  it('a torn last line is ignored and logged; every line before it is read', async () => {
    await writeSession(`${json(header)}\n${json(user)}\n${json(assistant)}\n{"type":"usage","usage":{"prompt_to`);
    const log = memoryLogger();
    const content = await new SessionStore(paths, { logger: log.logger }).read(ID);
    expect(content.lines).toEqual([user, assistant]);
    expect(content.skipped).toEqual([{ lineNumber: 4, reason: expect.stringMatching(/^torn last line/) as unknown }]);
    expect(content.tornTail).toBe(true);
    expect(log.records).toEqual([expect.objectContaining({ level: 'warn', sessionId: ID, lineNumber: 4 })]);
  });

  it('a corrupt middle line is skipped and logged; the lines after it are read', async () => {
    await writeSession(`${json(header)}\n${json(user)}\n{"type":"message","mess\n${json(assistant)}\n${json(usage)}\n`);
    const log = memoryLogger();
    const content = await new SessionStore(paths, { logger: log.logger }).read(ID);
    expect(content.lines).toEqual([user, assistant, usage]);
    expect(content.skipped).toEqual([{ lineNumber: 3, reason: 'not valid JSON' }]);
    expect(content.tornTail).toBe(false);
    expect(log.records.map((record) => record.lineNumber)).toEqual([3]);
  });

  it('unknown line types and lines that break the schema are skipped with their reason', async () => {
    const future = { type: 'compaction', at: 'later' };
    const badRole = { type: 'message', message: { role: 'wizard', content: 'x' } };
    await writeSession(
      [header, user, future, badRole, '[1,2]', assistant].map((v) => (typeof v === 'string' ? v : json(v))).join('\n') + '\n',
    );
    const log = memoryLogger();
    const content = await new SessionStore(paths, { logger: log.logger }).read(ID);
    expect(content.lines).toEqual([user, assistant]);
    expect(content.skipped.map((s) => [s.lineNumber, s.reason])).toEqual([
      [3, 'unknown line type compaction'],
      [4, expect.stringContaining('invalid message line at message.role')],
      [5, 'not a JSON object'],
    ]);
    expect(log.records).toHaveLength(3);
  });

  it('parseSessionLine: unknown type is "unknown line type x"', () => {
    expect(parseSessionLine('{"type":"x"}')).toEqual({ ok: false, reason: 'unknown line type x' });
    expect(parseSessionLine(json(usage))).toEqual({ ok: true, line: usage });
  });

  it('unknown fields are kept (forward compatible)', async () => {
    const extended = { ...user, message: { ...user.message, reasoning: 'r' }, source: 'tui' };
    await writeSession(`${json({ ...header, client: 'x' })}\n${json(extended)}\n`);
    const content = await new SessionStore(paths).read(ID);
    expect(content.header).toMatchObject({ client: 'x' });
    expect(content.lines).toEqual([extended]);
  });

  it('a file without a valid header is refused with AiZenError session', async () => {
    await writeSession(`${json(user)}\n`);
    const error = await new SessionStore(paths).read(ID).catch((e: unknown) => e);
    expect(AiZenError.isInstance(error) && error.code).toBe('session');
  });

  it('a missing session is AiZenError session with a clear line', async () => {
    await expect(new SessionStore(paths).read(ID)).rejects.toThrow(`session ${ID} does not exist`);
  });

  it('opening a session with a torn tail and appending keeps the fragment and writes a whole new line', async () => {
    const torn = '{"type":"usage","usage":{"prompt_to';
    const file = await writeSession(`${json(header)}\n${json(user)}\n${torn}`);
    const before = await fs.readFile(file, 'utf8');
    const opened = await ConversationContext.open({ paths, id: ID });
    expect(opened.messages).toEqual([{ message: user.message }]);
    await opened.context.appendMessage({ role: 'assistant', content: 'after the crash' });
    await opened.context.close();
    const after = await fs.readFile(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    const content = await new SessionStore(paths).read(ID);
    expect(content.lines).toEqual([user, { type: 'message', message: { role: 'assistant', content: 'after the crash' } }]);
    expect(content.skipped).toEqual([{ lineNumber: 3, reason: 'not valid JSON' }]);
  });

  it('open rebuilds the messages with their definition flag and the last usage', async () => {
    const system = { type: 'message', message: { role: 'system', content: 'rules' }, definition: true };
    await writeSession(
      [header, system, user, usage, assistant, { ...usage, usage: { prompt_tokens: 20, completion_tokens: 1, total_tokens: 21 } }]
        .map(json)
        .join('\n') + '\n',
    );
    const opened = await ConversationContext.open({ paths, id: ID });
    await opened.context.close();
    expect(opened.messages).toEqual([
      { message: system.message, definition: true },
      { message: user.message },
      { message: assistant.message },
    ]);
    expect(opened.lastUsage).toEqual({ prompt_tokens: 20, completion_tokens: 1, total_tokens: 21 });
    expect(opened.closed).toBe(false);
    expect(opened.header.id).toBe(ID);
  });
});
