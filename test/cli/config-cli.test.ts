// `ai-zen config [--json]` as a user runs it: the effective config and where each
// value came from, what an untrusted repo tried to set, no secret printed, and one clear line for
// a broken config file.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigReport } from '../../src/cli/ai-zen/config.js';
import { DAEMON_BIN } from '../daemon/daemon-harness.js';
import { runCli } from '../support/run-cli-in-process.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

const SECRET = 'sk-test-0123456789abcdef';

describe('ai-zen config', { timeout: 60_000 }, () => {
  const repos: TempRepo[] = [];
  afterEach(async () => {
    for (const repo of repos.splice(0)) await repo.cleanup();
  });

  async function setup(): Promise<{ repo: TempRepo; env: Record<string, string>; userFile: string; projectFile: string }> {
    const repo = await makeTempRepo();
    repos.push(repo);
    const env = { AI_ZEN_HOME: repo.home, GIT_CONFIG_GLOBAL: path.join(repo.home, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1' };
    const userFile = path.join(repo.home, 'config.json');
    const projectFile = path.join(repo.root, '.ai-zen', 'config.json');
    await fs.mkdir(path.dirname(projectFile), { recursive: true });
    return { repo, env, userFile, projectFile };
  }

  it('config --json: each value with its source — default, user file, repo file, environment, --model — and the secret only as "set"', async () => {
    const { repo, env, userFile, projectFile } = await setup();
    await fs.writeFile(userFile, JSON.stringify({ apiKey: SECRET, warnAt: 70, execTimeoutMs: 5000 }));
    await fs.writeFile(
      projectFile,
      JSON.stringify({ execTimeoutMs: 9000, daemon: { commit: 'ref' }, agents: { codex: { handoffAt: 50 } } }),
    );
    const trusted = await runCli(['trust'], { cwd: repo.root, env, bin: DAEMON_BIN });
    expect(trusted.code, trusted.stderr).toBe(0);

    const run = await runCli(['config', '--json', '--model', 'flag-model'], {
      cwd: repo.root,
      env: { ...env, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', AI_ZEN_MODEL: 'env-model' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain(SECRET);
    const report = ConfigReport.parse(JSON.parse(run.stdout));
    expect(report).toMatchObject({ v: 1, root: repo.root, files: [userFile, projectFile], trust: 'trusted', ignored: [] });
    const { settings } = report;
    expect(settings.model).toEqual({ value: 'flag-model', source: { kind: 'flag', flag: '--model' } });
    expect(settings.apiKey).toEqual({ value: 'set', secret: true, source: { kind: 'user', file: userFile } });
    expect(settings.baseURL).toEqual({ value: 'http://127.0.0.1:9/v1', source: { kind: 'env', variable: 'OPENAI_BASE_URL' } });
    expect(settings.execTimeoutMs).toEqual({ value: 9000, source: { kind: 'project', file: projectFile } });
    expect(settings.warnAt).toEqual({ value: 70, source: { kind: 'user', file: userFile } });
    expect(settings.executor).toEqual({ value: 'self', source: { kind: 'default' } });
    expect(settings['daemon.commit']).toEqual({ value: 'ref', source: { kind: 'project', file: projectFile } });
    expect(settings['agents.codex.handoffAt']).toEqual({ value: 50, source: { kind: 'project', file: projectFile } });
    expect(settings['agents.claude-code.handoffAt']).toEqual({ value: 70, source: { kind: 'default' } });

    // Without the flag, the environment's model is the one used.
    const byEnv = ConfigReport.parse(
      JSON.parse((await runCli(['config', '--json'], { cwd: repo.root, env: { ...env, AI_ZEN_MODEL: 'env-model' } })).stdout),
    );
    expect(byEnv.settings.model).toEqual({ value: 'env-model', source: { kind: 'env', variable: 'AI_ZEN_MODEL' } });
  });

  it('config: an untrusted repo’s model and endpoint are shown as ignored (repo not trusted), the values used come from elsewhere', async () => {
    const { repo, env, userFile, projectFile } = await setup();
    await fs.writeFile(userFile, JSON.stringify({ model: 'user-model' }));
    await fs.writeFile(projectFile, JSON.stringify({ model: 'repo-model', baseURL: 'http://evil.example/v1', warnAt: 90 }));

    const json = await runCli(['config', '--json'], { cwd: repo.root, env });
    expect(json.code, json.stderr).toBe(0);
    const report = ConfigReport.parse(JSON.parse(json.stdout));
    expect(report.trust).toBe('untrusted');
    expect(report.settings.model).toEqual({ value: 'user-model', source: { kind: 'user', file: userFile } });
    expect(report.settings.baseURL).toEqual({ value: null, source: { kind: 'default' } });
    // What an untrusted repo may set (not endpoint, model, executor) still applies.
    expect(report.settings.warnAt).toEqual({ value: 90, source: { kind: 'project', file: projectFile } });
    expect(report.ignored.map((entry) => [entry.key, entry.file])).toEqual([
      ['model', projectFile],
      ['baseURL', projectFile],
    ]);
    expect(report.ignored[0]?.reason).toContain('not trusted');
    expect(report.refusedEndpoint).toContain('http://evil.example/v1');

    const text = await runCli(['config'], { cwd: repo.root, env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^\s+model\s+"user-model"\s+from user config .*config\.json$/m);
    expect(text.stdout).toMatch(/^\s+model\s+ignored: set in .*\.ai-zen\/config\.json, but this repo is not trusted/m);
    expect(text.stdout).toMatch(/^\s+warnAt\s+90\s+from repo config /m);
  });

  it('config: an API key from the environment is "set (from environment OPENAI_API_KEY)", never its value', async () => {
    const { repo, env } = await setup();
    const run = await runCli(['config'], { cwd: repo.root, env: { ...env, OPENAI_API_KEY: SECRET } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain(SECRET);
    expect(run.stdout).toMatch(/^\s+apiKey\s+set \(not shown\)\s+from environment OPENAI_API_KEY$/m);
    expect(run.stdout).toMatch(/^\s+model\s+"gpt-4o"\s+from built-in default$/m);
  });

  it('config: a malformed config file is one line naming the file and the problem, exit non-zero', async () => {
    const { repo, env, projectFile, userFile } = await setup();
    await fs.writeFile(projectFile, '{"modle": "x"}');
    const unknown = await runCli(['config'], { cwd: repo.root, env });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toBe(`ai-zen: ${projectFile}: modle: unknown field\n`);

    await fs.rm(projectFile);
    await fs.writeFile(userFile, '{"warnAt": ');
    const broken = await runCli(['config', '--json'], { cwd: repo.root, env });
    expect(broken.code).not.toBe(0);
    expect(broken.stderr.trim().split('\n')).toHaveLength(1);
    expect(broken.stderr).toMatch(new RegExp(`^ai-zen: ${userFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not valid JSON`));
  });
});
