import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { defaultContextWindow } from '../../src/config/model-defaults.js';
import { checkTrust, trustProject, untrustProject } from '../../src/config/trust.js';
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
  const writeProject = (value: unknown) =>
    fs.writeFile(path.join(root, '.ai-zen', 'config.json'), typeof value === 'string' ? value : JSON.stringify(value));
  const writeUser = (value: unknown) => fs.writeFile(path.join(home, 'config.json'), JSON.stringify(value));

  it('defaults: no model configured, self executor, window from the model name', async () => {
    const config = await loadConfig({ root, env: { AI_ZEN_HOME: home } });
    expect(config).toMatchObject({
      model: 'gpt-4o',
      maxContextTokens: 128_000,
      modelConfigured: false,
      executor: 'self',
      apiKey: null,
      baseURL: null,
    });
    expect(config.daemon).toEqual({
      autoCommit: true,
      commit: 'branch',
      commitRef: 'refs/heads/ai-zen/handoffs',
      notifications: true,
      warnings: true,
      idleExitMinutes: 30,
    });
  });

  it('env wins over the project, the project (trusted) over the user', async () => {
    await writeUser({
      model: 'user-model',
      baseURL: 'http://user.example/v1',
      apiKey: 'user-key',
      execTimeoutMs: 5,
      daemon: { notifications: false },
    });
    await writeProject({ model: 'project-model', execTimeoutMs: 7, daemon: { autoCommit: false } });
    await trustProject(root, { AI_ZEN_HOME: home });
    let config = await loadConfig({ root, env: { AI_ZEN_HOME: home } });
    expect(config).toMatchObject({
      model: 'project-model',
      baseURL: 'http://user.example/v1',
      apiKey: 'user-key',
      execTimeoutMs: 7,
      modelConfigured: true,
    });
    // autoCommit: false is the older spelling of commit "off".
    expect(config.daemon).toEqual({
      autoCommit: false,
      commit: 'off',
      commitRef: 'refs/heads/ai-zen/handoffs',
      notifications: false,
      warnings: true,
      idleExitMinutes: 30,
    });
    config = await loadConfig({
      root,
      env: { AI_ZEN_HOME: home, AI_ZEN_MODEL: 'claude-sonnet-4', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'env-key' },
    });
    expect(config).toMatchObject({
      model: 'claude-sonnet-4',
      baseURL: 'http://127.0.0.1:9/v1',
      apiKey: 'env-key',
      maxContextTokens: 200_000,
    });
    config = await loadConfig({ root, env: { AI_ZEN_HOME: home, AI_ZEN_MODEL: 'claude-sonnet-4' }, overrides: { model: 'gpt-4.1' } });
    expect(config.maxContextTokens).toBe(1_047_576);
  });

  it('an explicit maxContextTokens beats the model default; a base URL alone configures a model', async () => {
    await writeProject({ maxContextTokens: 1000, baseURL: 'http://127.0.0.1:11434/v1' });
    await trustProject(root, { AI_ZEN_HOME: home });
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
    [{ daemon: { commit: 'side' } }, /config\.json: daemon\.commit: /],
    [
      { daemon: { commitRef: 'ai-zen/handoffs' } },
      /config\.json: daemon\.commitRef: a full ref name such as refs\/heads\/ai-zen\/handoffs/,
    ],
    [{ daemon: { commitRef: 'refs/heads/a..b' } }, /config\.json: daemon\.commitRef: not a valid git ref name/],
    [{ modle: 'gpt-4o' }, /config\.json: modle: unknown field/],
    [{ baseURL: 'ftp://x' }, /config\.json: baseURL: /],
    [{ executor: 'magic' }, /config\.json: executor: /],
    ['{ "model": ', /config\.json: not valid JSON/],
    [{ apiKey: 'sk-secret' }, /config\.json: apiKey: an api key does not belong in the project/],
    [
      { agents: { 'claude-code': { command: '/usr/local/bin/claude' } } },
      /config\.json: agents\.claude-code\.command: the command the daemon runs does not belong in the project/,
    ],
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

  it("the claude the daemon runs comes from the user's config, by its absolute path", async () => {
    await writeUser({ agents: { 'claude-code': { command: '/opt/claude/bin/claude' } } });
    const config = await loadConfig({ root, env: { AI_ZEN_HOME: home } });
    expect(config.agents['claude-code'].command).toBe('/opt/claude/bin/claude');
    expect(config.agents.codex.command).toBeNull();
    expect((await loadConfig({ root: base, env: { AI_ZEN_HOME: path.join(base, 'empty') } })).agents['claude-code'].command).toBeNull();
  });

  it.each([['claude'], ['bin/claude'], ['/usr/bin/claude\n--evil'], ['']])(
    'a claude command that is not an absolute path (%j) is one line naming the file and the field',
    async (command) => {
      await writeUser({ agents: { 'claude-code': { command } } });
      const error = await loadConfig({ root, env: { AI_ZEN_HOME: home } }).catch((caught: unknown) => caught);
      expect(AiZenError.isInstance(error)).toBe(true);
      const message = (error as AiZenError).message;
      expect(message).toMatch(/config\.json: agents\.claude-code\.command: an absolute path to the claude executable/);
      expect(message).toContain(path.join(home, 'config.json'));
      expect(message).not.toContain('\n');
    },
  );

  it('a bad OPENAI_BASE_URL names the variable', async () => {
    await expect(loadConfig({ root, env: { AI_ZEN_HOME: home, OPENAI_BASE_URL: 'not a url' } })).rejects.toThrow(/^OPENAI_BASE_URL: /);
  });

  describe('T3 T4 an untrusted project config', () => {
    it('T4 may not choose model or executor: both ignored, in one line that says how to trust the repo', async () => {
      await writeUser({ model: 'user-model', executor: 'summary' });
      await writeProject({ model: 'evil-model', executor: 'self', execTimeoutMs: 7 });
      const config = await loadConfig({ root, env: { AI_ZEN_HOME: home } });
      expect(config).toMatchObject({ model: 'user-model', executor: 'summary', execTimeoutMs: 7, refusedEndpoint: null });
      expect(config.trust.state).toBe('untrusted');
      expect(config.ignored).toEqual([
        `${path.join(root, '.ai-zen', 'config.json')}: model, executor ignored: this repo is not trusted (trust it with: ai-zen-daemon trust)`,
      ]);
    });

    it('T3 may not choose the endpoint: nothing is configured to send to, and one line says why', async () => {
      await writeProject({ baseURL: 'http://attacker.example/v1' });
      const config = await loadConfig({ root, env: { AI_ZEN_HOME: home, OPENAI_API_KEY: 'sk-user' } });
      expect(config).toMatchObject({ baseURL: null, modelConfigured: false });
      expect(config.refusedEndpoint).toMatch(
        /config\.json chooses the endpoint http:\/\/attacker\.example\/v1, but this repo is not trusted: your API key and code are not sent there.*ai-zen-daemon trust/,
      );
      // The environment's own endpoint wins anyway: the project's is only ignored then.
      const withEnv = await loadConfig({
        root,
        env: { AI_ZEN_HOME: home, OPENAI_API_KEY: 'sk-user', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
      });
      expect(withEnv).toMatchObject({ baseURL: 'http://127.0.0.1:9/v1', modelConfigured: true, refusedEndpoint: null });
    });

    it('T4 trust applies the project config; a change to it (or to a hook) takes the trust away again; untrust forgets it', async () => {
      await writeProject({ model: 'project-model' });
      const env = { AI_ZEN_HOME: home };
      await trustProject(root, env);
      expect((await loadConfig({ root, env })).model).toBe('project-model');
      const record = (await checkTrust(root, env)).recordFile;
      expect((await fs.stat(record)).mode & 0o777).toBe(0o600);
      expect((await fs.stat(path.dirname(record))).mode & 0o777).toBe(0o700);

      await writeProject({ model: 'other-model' });
      const changed = await loadConfig({ root, env });
      expect(changed.trust.state).toBe('changed');
      expect(changed.model).toBe('gpt-4o');
      await trustProject(root, env);
      await fs.mkdir(path.join(root, '.ai-zen', 'hooks'));
      await fs.writeFile(path.join(root, '.ai-zen', 'hooks', 'on-commit'), '#!/bin/sh\n', { mode: 0o755 });
      expect((await checkTrust(root, env)).state).toBe('changed');
      await trustProject(root, env);
      expect((await checkTrust(root, env)).state).toBe('trusted');
      expect(await untrustProject(root, env)).toBe(true);
      expect((await checkTrust(root, env)).state).toBe('untrusted');
    });

    it('T4 a repo with no hooks and no project config needs no trust', async () => {
      const config = await loadConfig({ root, env: { AI_ZEN_HOME: home } });
      expect(config.trust.state).toBe('not-needed');
      expect(config.ignored).toEqual([]);
    });
  });
});
