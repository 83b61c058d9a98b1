import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { defaultContextWindow } from '../../src/config/model-defaults.js';
import { AiZenError } from '../../src/errors.js';

describe('configuration', () => {
  let base: string;
  let root: string;
  let home: string;
  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-config-')));
    root = path.join(base, 'project');
    home = path.join(base, 'home');
    await fs.mkdir(path.join(root, '.ai-zen'), { recursive: true });
    await fs.mkdir(home, { recursive: true });
  });
  afterEach(async () => {
    await fs.rm(base, { recursive: true, force: true });
  });
  const writeProject = (value: unknown) => fs.writeFile(path.join(root, '.ai-zen', 'config.json'), typeof value === 'string' ? value : JSON.stringify(value));
  const writeUser = (value: unknown) => fs.writeFile(path.join(home, 'config.json'), JSON.stringify(value));

  it('defaults: no model configured, self executor, window from the model name', async () => {
    const config = await loadConfig({ root, env: { AI_ZEN_HOME: home } });
    expect(config).toMatchObject({ model: 'gpt-4o', maxContextTokens: 128_000, modelConfigured: false, executor: 'self', apiKey: null, baseURL: null });
    expect(config.daemon).toEqual({ autoCommit: true, notifications: true });
  });

  it('env wins over the project, the project over the user', async () => {
    await writeUser({ model: 'user-model', baseURL: 'http://user.example/v1', apiKey: 'user-key', execTimeoutMs: 5, daemon: { notifications: false } });
    await writeProject({ model: 'project-model', execTimeoutMs: 7, daemon: { autoCommit: false } });
    let config = await loadConfig({ root, env: { AI_ZEN_HOME: home } });
    expect(config).toMatchObject({ model: 'project-model', baseURL: 'http://user.example/v1', apiKey: 'user-key', execTimeoutMs: 7, modelConfigured: true });
    expect(config.daemon).toEqual({ autoCommit: false, notifications: false });
    config = await loadConfig({ root, env: { AI_ZEN_HOME: home, AI_ZEN_MODEL: 'claude-sonnet-4', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'env-key' } });
    expect(config).toMatchObject({ model: 'claude-sonnet-4', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'env-key', maxContextTokens: 200_000 });
    config = await loadConfig({ root, env: { AI_ZEN_HOME: home, AI_ZEN_MODEL: 'claude-sonnet-4' }, overrides: { model: 'gpt-4.1' } });
    expect(config.maxContextTokens).toBe(1_047_576);
  });

  it('an explicit maxContextTokens beats the model default; a base URL alone configures a model', async () => {
    await writeProject({ maxContextTokens: 1000, baseURL: 'http://127.0.0.1:11434/v1' });
    const config = await loadConfig({ root, env: { AI_ZEN_HOME: home } });
    expect(config).toMatchObject({ maxContextTokens: 1000, modelConfigured: true, apiKey: null });
  });

  it('knows the context windows of well-known models', () => {
    expect(defaultContextWindow('gpt-4o-mini')).toBe(128_000);
    expect(defaultContextWindow('gpt-4.1-mini')).toBe(1_047_576);
    expect(defaultContextWindow('o3')).toBe(200_000);
    expect(defaultContextWindow('o4-mini')).toBe(200_000);
    expect(defaultContextWindow('anthropic/claude-3-5-sonnet')).toBe(200_000);
    expect(defaultContextWindow('qwen2.5-coder-32b')).toBe(131_072);
    expect(defaultContextWindow('deepseek-chat')).toBe(64_000);
    expect(defaultContextWindow('something-new')).toBe(128_000);
  });

  it.each([
    [{ maxContextTokens: -5 }, /config\.json: maxContextTokens: /],
    [{ daemon: { autoCommit: 'yes' } }, /config\.json: daemon\.autoCommit: /],
    [{ modle: 'gpt-4o' }, /config\.json: modle: unknown field/],
    [{ baseURL: 'ftp://x' }, /config\.json: baseURL: /],
    [{ executor: 'magic' }, /config\.json: executor: /],
    ['{ "model": ', /config\.json: not valid JSON/],
    [{ apiKey: 'sk-secret' }, /config\.json: apiKey: an api key does not belong in the project/],
  ])('a bad project file %j gives one line naming the file and the field', async (content, expected) => {
    await writeProject(content);
    const error = await loadConfig({ root, env: { AI_ZEN_HOME: home } }).catch((caught: unknown) => caught);
    expect(AiZenError.isInstance(error)).toBe(true);
    const message = (error as AiZenError).message;
    expect((error as AiZenError).code).toBe('config');
    expect(message).toContain(path.join(root, '.ai-zen', 'config.json'));
    expect(message).toMatch(expected);
    expect(message).not.toContain('\n');
    expect(message).not.toContain('sk-secret');
  });

  it('a bad OPENAI_BASE_URL names the variable', async () => {
    await expect(loadConfig({ root, env: { AI_ZEN_HOME: home, OPENAI_BASE_URL: 'not a url' } })).rejects.toThrow(/^OPENAI_BASE_URL: /);
  });
});
