// For opencode: it has no command hooks but JS plugins, and `ai-zen-daemon install-hooks opencode`
// names ai-zen's plugin in the project's `.opencode/opencode.json`; its session.idle is ai-zen's Stop,
// session.created its SessionStart. With the real client (1.18.33, offline against the fake OpenAI
// server, a temp HOME).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { answerTitles, makeOpencodeHome, type OpencodeHome, runOpencode } from '../support/opencode-client.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const MARK = '[ai-zen handoff]';

describe('opencode hooks (install-hooks opencode), with the real client', { timeout: 180_000 }, () => {
  let fake: FakeOpenAI;
  let daemon: DaemonRepo;
  let opencode: OpencodeHome;
  let debugLog: string;

  beforeEach(async () => {
    fake = await startFakeOpenAI();
    answerTitles(fake);
    daemon = await makeDaemonRepo({ config: { agents: { opencode: { graceSeconds: 0 } } } });
    opencode = await makeOpencodeHome(path.dirname(daemon.root), { baseURL: fake.baseURL, context: 100_000 });
    daemon.env.XDG_DATA_HOME = opencode.dataHome;
    daemon.env.XDG_CONFIG_HOME = opencode.configHome;
    debugLog = path.join(path.dirname(daemon.root), 'hook-debug.log');
  });
  afterEach(async (context) => {
    if (process.env.X3_DEBUG && context.task.result?.state === 'fail') {
      console.log(await fs.readFile(path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log'), 'utf8').catch(() => 'no log'));
      console.log(await fs.readFile(debugLog, 'utf8').catch(() => 'no hook debug log'));
    }
    await daemon?.cleanup();
    await fake?.close();
  });

  const settingsFile = () => path.join(daemon.root, '.opencode', 'opencode.json');
  const hookEnv = () => ({
    AI_ZEN_HOME: daemon.env.AI_ZEN_HOME!,
    XDG_RUNTIME_DIR: daemon.env.XDG_RUNTIME_DIR!,
    AI_ZEN_HOOK_DEBUG: debugLog,
  });

  it('opencode: install-hooks opencode adds ai-zen’s plugin to the project’s .opencode/opencode.json (the user’s settings and the file’s mode kept, idempotent, kept out of git) and uninstall-hooks opencode removes it and nothing else', async () => {
    await fs.mkdir(path.join(daemon.root, '.opencode'));
    const theirs = { theme: 'dark', plugin: ['opencode-their-plugin'] };
    await fs.writeFile(settingsFile(), `${JSON.stringify(theirs, null, 2)}\n`, { mode: 0o640 });
    await fs.chmod(settingsFile(), 0o640);

    const installed = await daemon.daemon(['install-hooks', 'opencode']);
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain('hooks installed in .opencode/opencode.json');
    const after = JSON.parse(await fs.readFile(settingsFile(), 'utf8'));
    const plugin = path.join(daemon.env.AI_ZEN_HOME!, 'opencode', 'ai-zen-hooks.js');
    expect(after).toEqual({ theme: 'dark', plugin: ['opencode-their-plugin', pathToFileURL(plugin).href] });
    expect((await fs.stat(settingsFile())).mode & 0o777).toBe(0o640);
    const source = await fs.readFile(plugin, 'utf8');
    for (const event of ['Stop', 'PreCompact', 'SessionStart']) expect(source).toMatch(new RegExp(` hook opencode ${event}"`));
    expect(source).toContain(`const APP = "opencode";`);
    expect(await fs.readFile(path.join(daemon.root, '.git', 'info', 'exclude'), 'utf8')).toContain('.opencode/opencode.json');
    expect(await daemon.repo.git('status', '--porcelain')).not.toContain('.opencode');
    const again = await daemon.daemon(['install-hooks', 'opencode']);
    expect(again.stdout).toContain('hooks already installed');
    expect(JSON.parse(await fs.readFile(settingsFile(), 'utf8'))).toEqual(after);

    const removed = await daemon.daemon(['uninstall-hooks', 'opencode']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("ai-zen's hooks removed");
    expect(JSON.parse(await fs.readFile(settingsFile(), 'utf8'))).toEqual(theirs);
    expect((await fs.stat(settingsFile())).mode & 0o777).toBe(0o640);
    expect((await daemon.daemon(['uninstall-hooks', 'opencode'])).stdout).toContain('no ai-zen hooks');
  });

  it('opencode run (a script) crossing with the plugin installed keeps its answer: stdout is the model’s last reply, opencode is not asked to write, and the daemon has written the document (offline) before opencode exits', async () => {
    expect((await daemon.daemon(['install-hooks', 'opencode'])).code).toBe(0);
    await daemon.start();
    fake.enqueue(
      reply().tool('bash', { command: 'ls', description: 'list' }).usage({ prompt_tokens: 20_000, completion_tokens: 20 }),
      reply().text('The --verbose flag is wired; 2 tests added.').usage({ prompt_tokens: 80_000, completion_tokens: 50 }),
    );
    const before = fake.requests.length;
    const result = await runOpencode('add a --verbose flag to the CLI', { cwd: daemon.root, home: opencode, env: hookEnv() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('The --verbose flag is wired; 2 tests added.');
    expect(fake.requests.slice(before).some((request) => JSON.stringify(request.messages).includes(MARK))).toBe(false);
    // The Stop hook (session.idle) waited for the daemon's document: it is there when the script has ended.
    const [doc] = await handoffDocs(daemon.root);
    expect(doc).toBeDefined();
    const committed = await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 45_000,
      message: 'the committed handoff',
    });
    expect(committed).toMatchObject({ agent: 'opencode', executor: 'offline' });
  });
});
