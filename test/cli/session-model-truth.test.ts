// One source of truth for a session's model and window — its header. On
// --continue / --resume the agent keeps them; a config change applies to new sessions, said once.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/fake-openai.js';
import { runCli } from '../support/run-cli-in-process.js';
import { freshRepoAndModel } from '../support/repo-and-model.js';

describe('the session header is the truth for model and window', () => {
  const each = freshRepoAndModel();
  const env = (extra: Record<string, string> = {}) => ({
    AI_ZEN_HOME: each.repo.home,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: each.fake.baseURL,
    ...extra,
  });
  const writeProjectConfig = async (value: object) => {
    await fs.mkdir(path.join(each.repo.root, '.ai-zen'), { recursive: true });
    await fs.writeFile(path.join(each.repo.root, '.ai-zen', 'config.json'), JSON.stringify(value));
  };

  it('--continue after the config changed keeps the session model and window, and says so in one line', async () => {
    await writeProjectConfig({ maxContextTokens: 1000 });
    each.fake.enqueue(reply().text('first').usage({ prompt_tokens: 100, completion_tokens: 1 }));
    const first = await runCli(['-p', 'one'], { cwd: each.repo.root, env: env({ AI_ZEN_MODEL: 'model-a' }) });
    expect(first).toMatchObject({ code: 0, stdout: 'first\n', stderr: '' });
    const id = (await fs.readdir(path.join(each.repo.root, '.ai-zen', 'sessions')))
      .find((name) => name.endsWith('.jsonl'))!
      .replace(/\.jsonl$/, '');

    await writeProjectConfig({ maxContextTokens: 5000 });
    each.fake.enqueue(reply().text('second').usage({ prompt_tokens: 200, completion_tokens: 1 }));
    const second = await runCli(['-c', '-p', 'two'], { cwd: each.repo.root, env: env({ AI_ZEN_MODEL: 'model-b' }) });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('second\n');
    expect(second.stderr).toBe(
      `ai-zen: session ${id.slice(0, 8)} keeps its own model model-a and window 1000 (the config now says model-b, 5000: new sessions use that)\n`,
    );
    expect(each.fake.requests.map((request) => request.body?.model)).toEqual(['model-a', 'model-a']);

    // A new session takes the config as it is now.
    each.fake.enqueue(reply().text('third').usage({ prompt_tokens: 10, completion_tokens: 1 }));
    const fresh = await runCli(['-p', 'three'], { cwd: each.repo.root, env: env({ AI_ZEN_MODEL: 'model-b' }) });
    expect(fresh).toMatchObject({ code: 0, stderr: '' });
    expect(each.fake.requests.at(-1)?.body?.model).toBe('model-b');
  });
});
