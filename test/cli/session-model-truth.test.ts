// Issue 9 item 9: one source of truth for a session's model and window — its header. On
// --continue / --resume the agent keeps them; a config change applies to new sessions, said once.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { runCli } from '../support/run-cli.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

describe('issue 9 item 9 the session header is the truth for model and window', () => {
  let repo: TempRepo;
  let fake: FakeOpenAI;
  beforeEach(async () => {
    repo = await makeTempRepo();
    fake = await startFakeOpenAI();
  });
  afterEach(async () => {
    await fake.close();
    await repo.cleanup();
  });
  const env = (extra: Record<string, string> = {}) => ({
    AI_ZEN_HOME: repo.home,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: fake.baseURL,
    ...extra,
  });
  const writeProjectConfig = async (value: object) => {
    await fs.mkdir(path.join(repo.root, '.ai-zen'), { recursive: true });
    await fs.writeFile(path.join(repo.root, '.ai-zen', 'config.json'), JSON.stringify(value));
  };

  it('issue 9 item 9 --continue after the config changed keeps the session model and window, and says so in one line', async () => {
    await writeProjectConfig({ maxContextTokens: 1000 });
    fake.enqueue(reply().text('first').usage({ prompt_tokens: 100, completion_tokens: 1 }));
    const first = await runCli(['-p', 'one'], { cwd: repo.root, env: env({ AI_ZEN_MODEL: 'model-a' }) });
    expect(first).toMatchObject({ code: 0, stdout: 'first\n', stderr: '' });
    const id = (await fs.readdir(path.join(repo.root, '.ai-zen', 'sessions')))
      .find((name) => name.endsWith('.jsonl'))!
      .replace(/\.jsonl$/, '');

    await writeProjectConfig({ maxContextTokens: 5000 });
    fake.enqueue(reply().text('second').usage({ prompt_tokens: 200, completion_tokens: 1 }));
    const second = await runCli(['-c', '-p', 'two'], { cwd: repo.root, env: env({ AI_ZEN_MODEL: 'model-b' }) });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('second\n');
    expect(second.stderr).toBe(
      `ai-zen: session ${id.slice(0, 8)} keeps its own model model-a and window 1000 (the config now says model-b, 5000: new sessions use that)\n`,
    );
    expect(fake.requests.map((request) => request.body?.model)).toEqual(['model-a', 'model-a']);

    // A new session takes the config as it is now.
    fake.enqueue(reply().text('third').usage({ prompt_tokens: 10, completion_tokens: 1 }));
    const fresh = await runCli(['-p', 'three'], { cwd: repo.root, env: env({ AI_ZEN_MODEL: 'model-b' }) });
    expect(fresh).toMatchObject({ code: 0, stderr: '' });
    expect(fake.requests.at(-1)?.body?.model).toBe('model-b');
  });
});
