// `ai-zen -p` as a user runs it: the built CLI in a real process, in a real temp git repo, against
// the fake model server. stdout holds the answer and nothing else; every failure is one line.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSessionLine } from '../../src/session/parse-line.js';
import type { SessionLine } from '../../src/session/format.js';
import { memoryLogger } from '../support/memory-logger.js';
import { hang, httpError, reply, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { runCli } from '../support/run-cli-in-process.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

const SECRET = 'sk-test-secret-0123456789';

describe('ai-zen -p (print mode)', () => {
  let repo: TempRepo;
  let fake: FakeOpenAI;
  beforeEach(async () => {
    repo = await makeTempRepo();
    fake = await startFakeOpenAI({ apiKey: SECRET });
  });
  afterEach(async () => {
    await fake.close();
    await repo.cleanup();
  });

  const env = (extra: Record<string, string> = {}) => ({
    AI_ZEN_HOME: repo.home,
    OPENAI_API_KEY: SECRET,
    OPENAI_BASE_URL: fake.baseURL,
    ...extra,
  });
  const cli = (args: string[], options: { cwd?: string; env?: Record<string, string>; input?: string } = {}) =>
    runCli(args, {
      cwd: options.cwd ?? repo.root,
      env: options.env ?? env(),
      ...(options.input !== undefined ? { input: options.input } : {}),
    });
  const sessionsDir = () => path.join(repo.root, '.ai-zen', 'sessions');

  /** Every line of a session file, each checked against the v1 schemas. */
  async function sessionFile(id: string): Promise<SessionLine[]> {
    const text = await fs.readFile(path.join(sessionsDir(), `${id}.jsonl`), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    return text
      .trimEnd()
      .split('\n')
      .map((raw) => {
        const parsed = parseSessionLine(raw);
        if (!parsed.ok) throw new Error(`invalid session line: ${parsed.reason}: ${raw}`);
        return parsed.line;
      });
  }
  async function onlySessionId(): Promise<string> {
    const files = (await fs.readdir(sessionsDir())).filter((name) => name.endsWith('.jsonl'));
    expect(files).toHaveLength(1);
    return files[0]!.replace(/\.jsonl$/, '');
  }
  const roles = (lines: SessionLine[]) =>
    lines.map((line) => (line.type === 'message' ? `${line.message.role}${line.definition ? '*' : ''}` : line.type));
  const expectOneLine = (stderr: string) => {
    expect(stderr.endsWith('\n')).toBe(true);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^ai-zen: /);
    expect(stderr).not.toMatch(/\n\s+at /);
  };

  it('runs the tool loop, prints only the final answer, and records a valid v1 session', async () => {
    fake.enqueue(
      reply()
        .text('I will create it.')
        .tool('write', { path: 'src/a.ts', content: 'export const a = 1;\n' })
        .usage({ prompt_tokens: 900, completion_tokens: 20 }),
      reply().tool('exec', { command: 'ls src' }).usage({ prompt_tokens: 950, completion_tokens: 8 }),
      reply().text('Created src/a.ts.').usage({ prompt_tokens: 1000, completion_tokens: 6 }),
    );
    const result = await cli(['-p', 'create src/a.ts']);
    expect(result).toMatchObject({ code: 0, stdout: 'Created src/a.ts.\n', stderr: '' });
    expect(await fs.readFile(path.join(repo.root, 'src/a.ts'), 'utf8')).toBe('export const a = 1;\n');
    expect(fake.requests[2]?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'a.ts\n[exit code 0]' });

    const id = await onlySessionId();
    const lines = await sessionFile(id);
    expect(lines[0]).toMatchObject({
      type: 'session',
      v: 1,
      id,
      cwd: repo.root,
      model: 'gpt-4o',
      maxContextTokens: 128_000,
      previousId: null,
    });
    expect(new Date((lines[0] as { createdAt: string }).createdAt).toISOString()).toBe((lines[0] as { createdAt: string }).createdAt);
    expect(roles(lines)).toEqual([
      'session',
      'system*',
      'user',
      'assistant',
      'usage',
      'tool',
      'assistant',
      'usage',
      'tool',
      'assistant',
      'usage',
    ]);
    expect(lines.at(-1)).toEqual({ type: 'usage', usage: { prompt_tokens: 1000, completion_tokens: 6, total_tokens: 1006 } });
    expect(JSON.parse(await fs.readFile(path.join(repo.root, '.ai-zen', 'latest-session.json'), 'utf8'))).toMatchObject({ id });
    // The system prompt names the handoff convention (R4).
    expect(String((lines[1] as { message: { content: string } }).message.content)).toContain('.ai-zen/handoffs/');
    // Secrets never reach the log.
    expect(await fs.readFile(path.join(repo.root, '.ai-zen', 'logs', 'ai-zen.log'), 'utf8')).not.toContain(SECRET);
  });

  it('--continue carries on the latest session; --resume <id> carries on a named one', async () => {
    fake.enqueue(reply().text('first answer'));
    expect((await cli(['-p', 'first question'])).stdout).toBe('first answer\n');
    const id = await onlySessionId();

    fake.enqueue(reply().text('second answer'));
    const second = await cli(['--continue', '-p', 'second question']);
    expect(second).toMatchObject({ code: 0, stdout: 'second answer\n', stderr: '' });
    expect(fake.requests[1]?.messages.map((m: { role: string; content: string }) => `${m.role}:${m.content}`).slice(1)).toEqual([
      'user:first question',
      'assistant:first answer',
      'user:second question',
    ]);
    expect(await onlySessionId()).toBe(id);

    fake.enqueue(reply().text('third answer'));
    expect(await cli(['--resume', id, '-p', 'third question'])).toMatchObject({ code: 0, stdout: 'third answer\n' });
    expect(roles(await sessionFile(id))).toEqual([
      'session',
      'system*',
      'user',
      'assistant',
      'usage',
      'user',
      'assistant',
      'usage',
      'user',
      'assistant',
      'usage',
    ]);
  });

  it('finds the project root from a subfolder (git top level)', async () => {
    await fs.mkdir(path.join(repo.root, 'pkg', 'inner'), { recursive: true });
    fake.enqueue(reply().tool('read', { path: 'README.md' }), reply().text('read it'));
    expect((await cli(['-p', 'read the readme'], { cwd: path.join(repo.root, 'pkg', 'inner') })).stdout).toBe('read it\n');
    expect(fake.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', content: '# test repo\n' });
    await onlySessionId();
  });

  it('a prompt piped on stdin without -p runs as print mode (R20: no waiting for input)', async () => {
    fake.enqueue(reply().text('from the pipe'));
    expect(await cli([], { input: 'piped question\n' })).toMatchObject({ code: 0, stdout: 'from the pipe\n', stderr: '' });
    expect(fake.requests[0]?.lastUserText).toBe('piped question');
  });

  it.each([
    // Only the hang waits for the model's timeout; the others keep a roomy one, so a loaded machine
    // cannot turn a quick HTTP error into a timeout.
    ['401 bad key', () => httpError(401), /^ai-zen: model request failed: 401 Unauthorized \(invalid api key/, 30_000],
    ['500', () => httpError(500), /^ai-zen: model request failed: 500 Internal Server Error/, 30_000],
    ['a hang', () => hang(), /^ai-zen: model did not answer within 500ms at http:\/\/127\.0\.0\.1:\d+\/v1$/, 500],
  ])(
    'a model failure (%s) is one line on stderr, exit 1, and the session stays valid',
    async (_name, failure, expected, modelTimeoutMs) => {
      await fs.mkdir(path.join(repo.root, '.ai-zen'), { recursive: true });
      await fs.writeFile(path.join(repo.root, '.ai-zen', 'config.json'), JSON.stringify({ modelTimeoutMs }));
      fake.enqueue(failure());
      const result = await cli(['-p', 'hello']);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expectOneLine(result.stderr);
      expect(result.stderr.trimEnd()).toMatch(expected);
      const id = await onlySessionId();
      expect(roles(await sessionFile(id))).toEqual(['session', 'system*', 'user']);

      fake.enqueue(reply().text('recovered'));
      expect(await cli(['--continue', '-p', 'again'])).toMatchObject({ code: 0, stdout: 'recovered\n' });
    },
  );

  it('a wrong api key is refused by the server and reported in one line without the key', async () => {
    const result = await cli(['-p', 'hello'], { env: env({ OPENAI_API_KEY: 'sk-wrong' }) });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr);
    expect(result.stderr).toMatch(/401 Unauthorized \(invalid api key/);
    expect(result.stderr).not.toContain('sk-wrong');
  });

  it('a bad config file gives one line naming the file and the field, exit 1, no stack trace', async () => {
    await fs.mkdir(path.join(repo.root, '.ai-zen'), { recursive: true });
    const file = path.join(repo.root, '.ai-zen', 'config.json');
    await fs.writeFile(file, JSON.stringify({ model: 'gpt-4o', maxContextTokens: 'lots' }));
    const result = await cli(['-p', 'hello']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expectOneLine(result.stderr);
    expect(result.stderr).toContain(`ai-zen: ${file}: maxContextTokens: `);
    expect(fake.requests).toHaveLength(0);
  });

  it('no model configured, --continue with no session, and usage errors are one line each', async () => {
    const unconfigured = await cli(['-p', 'hello'], { env: { AI_ZEN_HOME: repo.home } });
    expect(unconfigured.code).toBe(1);
    expectOneLine(unconfigured.stderr);
    expect(unconfigured.stderr).toMatch(/^ai-zen: no model configured: set OPENAI_API_KEY/);

    const nothing = await cli(['--continue', '-p', 'hello']);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toMatch(/^ai-zen: no session to continue in /);

    const usage = await cli(['--no-such-option']);
    expect(usage.code).toBe(2);
    expectOneLine(usage.stderr);
    expect(usage.stderr).toMatch(/^ai-zen: unknown option '--no-such-option'/);

    const both = await cli(['--continue', '--resume', 'abcdefgh-1234', '-p', 'x']);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('ai-zen: --continue and --resume cannot be used together\n');
  });

  it('--resume with an id that is not an id never shapes a path', async () => {
    const result = await cli(['--resume', '../../../etc/passwd', '-p', 'x']);
    expect(result.code).toBe(1);
    expectOneLine(result.stderr);
    expect(result.stderr).toMatch(/not a valid session id/);
  });

  it('--verbose writes the log to stderr, and the log redacts secrets', async () => {
    fake.enqueue(reply().text('answer'));
    const result = await cli(['--verbose', '-p', 'hello']);
    expect(result.stdout).toBe('answer\n');
    expect(result.stderr).toContain('"msg":"project opened"');

    // The same configuration, written to memory: every secret path is redacted.
    const log = memoryLogger();
    log.logger.info(
      { apiKey: SECRET, config: { apiKey: SECRET }, headers: { authorization: `Bearer ${SECRET}` }, env: { OPENAI_API_KEY: SECRET } },
      'secrets',
    );
    const written = log.lines.join('\n');
    expect(written).toContain('[redacted]');
    expect(written).not.toContain(SECRET);
  });
});
