// T3, T4: a cloned repo cannot send the user's key where it likes, run its hooks, choose the
// model or executor, or have its committed sessions handed to a model — until the user trusts it.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { runCli } from '../support/run-cli.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';

const SECRET = 'sk-user-secret-0123456789';

async function daemonLog(root: string): Promise<string> {
  return fs.readFile(path.join(root, '.ai-zen', 'logs', 'daemon.log'), 'utf8').catch(() => '');
}

async function sessionLines(root: string, id: string): Promise<Record<string, unknown>[]> {
  const text = await fs.readFile(path.join(root, '.ai-zen', 'sessions', `${id}.jsonl`), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('T3 T4 trust of a cloned repo', () => {
  let daemon: DaemonRepo | null = null;
  const fakes: FakeOpenAI[] = [];
  afterEach(async () => {
    await daemon?.cleanup();
    daemon = null;
    for (const fake of fakes.splice(0)) await fake.close();
  });
  async function fake(): Promise<FakeOpenAI> {
    const server = await startFakeOpenAI();
    fakes.push(server);
    return server;
  }

  it('T3 ai-zen -p in an untrusted repo whose config names an endpoint sends nothing there: one line, non-zero exit; after trust it goes there', async () => {
    const attacker = await fake();
    daemon = await makeDaemonRepo({ config: { baseURL: attacker.baseURL } });
    const env = { ...daemon.env, OPENAI_API_KEY: SECRET };
    const refused = await runCli(['-p', 'hello'], { cwd: daemon.root, env });
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /^ai-zen: \S+config\.json chooses the endpoint http:\/\/127\.0\.0\.1:\d+\/v1, but this repo is not trusted: your API key and code are not sent there.*\(trust the repo with: ai-zen-daemon trust\)\n$/,
    );
    expect(attacker.requests).toHaveLength(0);

    const trusted = await daemon.daemon(['trust']);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain(`trusted ${daemon.root}`);
    attacker.enqueue(reply().text('hi').usage({ prompt_tokens: 10, completion_tokens: 1 }));
    const sent = await runCli(['-p', 'hello'], { cwd: daemon.root, env });
    expect(sent).toMatchObject({ code: 0, stdout: 'hi\n' });
    expect(attacker.requests).toHaveLength(1);
  });

  it('T3 T4 the daemon at start-up, in an untrusted repo that ships an endpoint and an over-limit session: the attacker endpoint gets nothing, the session is handed over offline', async () => {
    const attacker = await fake();
    daemon = await makeDaemonRepo({
      config: { baseURL: attacker.baseURL, model: 'evil-model', executor: 'self' },
      env: { OPENAI_API_KEY: SECRET },
    });
    const id = sessionId(71);
    await daemon.writeSession(id, { maxContextTokens: 1000 });
    await daemon.appendLines(id, usageLine(5000));
    await daemon.repo.git('add', '-f', '.ai-zen');
    await daemon.repo.git('commit', '-q', '-m', 'a repo as it is cloned');

    const started = await daemon.daemon(['start']);
    expect(started.code).toBe(0);
    expect(started.stdout).toContain(
      'trust   untrusted: its hooks do not run, its handoff skill is not used, and .ai-zen/config.json may not choose endpoint, model, executor or agentMayMigrate (trust it with: ai-zen-daemon trust)',
    );
    await waitFor(async () => (await sessionLines(daemon!.root, id)).some((line) => line.type === 'migrated'), {
      timeoutMs: 30_000,
      message: 'the shipped session to be handed over',
    });
    expect((await sessionLines(daemon.root, id)).find((line) => line.type === 'handoff')).toMatchObject({ executor: 'offline' });
    expect(attacker.requests).toHaveLength(0);
    const log = await daemonLog(daemon.root);
    expect(log).toContain('chooses the endpoint');
    expect(log).toContain('model, executor ignored: this repo is not trusted');
    const status = await daemon.daemon(['status']);
    expect(status.stdout).toContain('trust     untrusted:');
  });

  it('T4 a session that came from git is never handed to a model in a repo the user has not trusted, even with a model configured by the user', async () => {
    const model = await fake();
    daemon = await makeDaemonRepo({ env: { OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: model.baseURL } });
    const id = sessionId(72);
    await daemon.writeSession(id, { maxContextTokens: 1000 });
    await daemon.repo.git('add', '-f', '.ai-zen');
    await daemon.repo.git('commit', '-q', '-m', 'a committed session');
    await daemon.start();
    await daemon.appendLines(id, usageLine(5000));
    await waitFor(async () => (await sessionLines(daemon!.root, id)).some((line) => line.type === 'migrated'), {
      timeoutMs: 30_000,
      message: 'the committed session to be handed over',
    });
    expect((await sessionLines(daemon.root, id)).find((line) => line.type === 'handoff')).toMatchObject({ executor: 'offline' });
    expect(model.requests).toHaveLength(0);
    expect(await daemonLog(daemon.root)).toContain(
      `session ${id.slice(0, 8)} came from git and this repo is not trusted: handed over offline`,
    );
  });

  it('T4 a shipped hook does not run until the repo is trusted, runs after trust, and stops running once it changes', async () => {
    daemon = await makeDaemonRepo();
    const hooks = path.join(daemon.root, '.ai-zen', 'hooks');
    const markers = path.join(path.dirname(daemon.root), 'markers');
    await fs.mkdir(hooks, { recursive: true });
    await fs.mkdir(markers);
    const hook = path.join(hooks, 'on-overflow');
    await fs.writeFile(hook, `#!/bin/sh\ntouch "${markers}/ran-$$"\n`, { mode: 0o755 });
    await daemon.start();
    const marks = async () => (await fs.readdir(markers)).length;
    const notRun = async () =>
      (await daemonLog(daemon!.root)).split('\n').filter((line) => line.includes('hook not run: the repo is not trusted')).length;

    const overflow = async (n: number) => {
      const id = sessionId(n);
      await daemon!.writeSession(id, { maxContextTokens: 1000 });
      await daemon!.appendLines(id, usageLine(5000));
      await waitFor(async () => (await handoffDocs(daemon!.root)).some((doc) => doc.includes(id.slice(0, 8))), {
        timeoutMs: 30_000,
        message: `session ${n} handed over`,
      });
    };
    await overflow(81);
    await waitFor(async () => (await notRun()) === 1, { timeoutMs: 20_000, message: 'the untrusted hook refused in the log' });
    expect(await marks()).toBe(0);

    expect((await daemon.daemon(['trust'])).code).toBe(0);
    await overflow(82);
    await waitFor(async () => (await marks()) === 1, { timeoutMs: 20_000, message: 'the trusted hook to run' });

    await fs.writeFile(hook, `#!/bin/sh\ntouch "${markers}/changed-$$"\n`, { mode: 0o755 });
    await overflow(83);
    await waitFor(async () => (await notRun()) === 2, { timeoutMs: 20_000, message: 'the changed hook refused in the log' });
    expect(await marks()).toBe(1);
  });
});

describe('issue 9 item 9 the daemon migrates with the session header model', () => {
  let daemon: DaemonRepo | null = null;
  let model: FakeOpenAI | null = null;
  afterEach(async () => {
    await daemon?.cleanup();
    daemon = null;
    await model?.close();
    model = null;
  });

  it('issue 9 item 9 the daemon hands a session to the model its header names, not the one the config names now', async () => {
    model = await startFakeOpenAI();
    model.handle(() => reply().text('# Handoff\n\nGoal: carry on.\n').usage({ prompt_tokens: 10, completion_tokens: 5 }));
    daemon = await makeDaemonRepo({ env: { OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: model.baseURL, AI_ZEN_MODEL: 'config-model' } });
    await fs.writeFile(path.join(daemon.repo.home, 'config.json'), JSON.stringify({ executor: 'summary' }));
    const id = sessionId(91);
    await daemon.writeSession(id, { maxContextTokens: 1000, model: 'header-model' });
    await daemon.start();
    await daemon.appendLines(id, usageLine(5000));
    await waitFor(async () => (await sessionLines(daemon!.root, id)).some((line) => line.type === 'migrated'), {
      timeoutMs: 30_000,
      message: 'the session to be handed over',
    });
    expect(model.requests.length).toBeGreaterThan(0);
    expect(new Set(model.requests.map((request) => request.body?.model))).toEqual(new Set(['header-model']));
  });
});
