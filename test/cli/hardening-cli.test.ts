// The built `ai-zen` in a real process, real temp repo, fake model server.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatTokens } from '../../src/format-tokens.js';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { runCli } from '../support/run-cli-in-process.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

const SECRET = 'sk-test-secret-0123456789';

describe('ai-zen at the edges', { timeout: 60_000 }, () => {
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

  const env = { AI_ZEN_HOME: '', OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: '' };
  const cli = (args: string[]) => runCli(args, { cwd: repo.root, env: { ...env, AI_ZEN_HOME: repo.home, OPENAI_BASE_URL: fake.baseURL } });
  const sessionsDir = () => path.join(repo.root, '.ai-zen', 'sessions');
  const header = (id: string) => ({
    type: 'session',
    v: 1,
    id,
    createdAt: new Date().toISOString(),
    cwd: repo.root,
    model: 'test-model',
    maxContextTokens: 100_000,
    previousId: null,
  });
  const system = { type: 'message', message: { role: 'system', content: 'You are a coding agent.' }, definition: true };
  async function writeSession(id: string, ...lines: (object | string)[]): Promise<string> {
    await fs.mkdir(sessionsDir(), { recursive: true });
    const file = path.join(sessionsDir(), `${id}.jsonl`);
    await fs.writeFile(
      file,
      [header(id), system, ...lines].map((line) => `${typeof line === 'string' ? line : JSON.stringify(line)}\n`).join(''),
    );
    return file;
  }
  const userLines = async (file: string) =>
    (await fs.readFile(file, 'utf8')).split('\n').filter((line) => line.includes('"role":"user"')).length;

  it('$HOME as the project (a dotfiles repo): the apiKey in ~/.ai-zen/config.json is the user config, and is used', async () => {
    await fs.mkdir(path.join(repo.root, '.ai-zen'), { recursive: true });
    await fs.writeFile(path.join(repo.root, '.ai-zen', 'config.json'), JSON.stringify({ apiKey: SECRET, baseURL: fake.baseURL }));
    fake.enqueue(reply().text('from the dotfiles repo'));
    const result = await runCli(['-p', 'hi'], {
      cwd: repo.root,
      env: { HOME: repo.root, AI_ZEN_HOME: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined },
    });
    expect(result).toMatchObject({ code: 0, stdout: 'from the dotfiles repo\n', stderr: '' });
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  it('ai-zen help prints the help, as ai-zen-daemon help does', async () => {
    const result = await cli(['help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: ai-zen \[options\] \[command\]/);
    expect(result.stderr).toBe('');
    const sub = await cli(['help', 'migrate']);
    expect(sub.stdout).toMatch(/^Usage: ai-zen migrate/);
  });

  it('-r takes any unique prefix of a session id; an ambiguous one is one line naming the candidates', async () => {
    const first = 'abcdef01-1111-4111-8111-111111111111';
    const second = 'abcdef02-2222-4222-8222-222222222222';
    await writeSession(first);
    await writeSession(second);
    fake.enqueue(reply().text('resumed by prefix'));
    const resumed = await cli(['-r', 'abcdef01', '-p', 'hi']);
    expect(resumed).toMatchObject({ code: 0, stdout: 'resumed by prefix\n' });
    expect(await userLines(path.join(sessionsDir(), `${first}.jsonl`))).toBe(1);

    const ambiguous = await cli(['-r', 'abcdef0', '-p', 'hi']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toBe(`ai-zen: "abcdef0" is ambiguous: it names 2 sessions (${first}, ${second})\n`);
  });

  it('-r on a migrated session names its successor instead of "carry on with --continue"', async () => {
    const old = 'cafe0001-1111-4111-8111-111111111111';
    const successor = 'cafe0002-2222-4222-8222-222222222222';
    await writeSession(old, { type: 'migrated', at: new Date().toISOString(), newId: successor, path: '.ai-zen/handoffs/x.md' });
    const result = await cli(['-r', old, '-p', 'hi']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`ai-zen: session ${old} is closed: it was migrated to session ${successor} (ai-zen --resume cafe0002)\n`);
  });

  it('a 100,000-level nested message does not kill ai-zen -r <id> -p hi, and each run appends one user line only', async () => {
    const id = 'deep0001-1111-4111-8111-111111111111';
    const nested = `{"type":"message","message":{"role":"user","content":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const file = await writeSession(id, nested, { type: 'message', message: { role: 'assistant', content: 'ok' } });
    const before = await userLines(file);
    fake.enqueue(reply().text('still alive'));
    const result = await cli(['-r', id, '-p', 'hi']);
    expect(result.stderr).not.toMatch(/Maximum call stack/);
    expect(result).toMatchObject({ code: 0, stdout: 'still alive\n' });
    expect(await userLines(file)).toBe(before + 1);
    // The deep line was skipped (and logged), never sent to the model.
    expect(JSON.stringify(fake.requests[0]?.messages)).not.toContain('[[[[');
  });
});

describe('token counts as a person reads them', () => {
  it('999,999 tokens is 1M, not 1000k', () => {
    expect(formatTokens(999_999)).toBe('1M');
    expect(formatTokens(999_499)).toBe('999k');
    expect(formatTokens(131_000)).toBe('131k');
  });
});
