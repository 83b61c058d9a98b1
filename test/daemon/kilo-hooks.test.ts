// For Kilo Code, as opencode-hooks.test.ts does for opencode: Kilo loads opencode's JS plugins, and
// `ai-zen-daemon install-hooks kilo` names ai-zen's plugin in the project's `.kilo/kilo.json`; its
// session.idle is ai-zen's Stop, session.created its SessionStart. With the real Kilo CLI (7.7.9,
// offline against the fake OpenAI server, a temp HOME).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { briefNamedIn } from '../support/brief-named.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { answerTitles, KILO_TEST_MS, type KiloHome, makeKiloHome, runKilo, startKiloServer } from '../support/kilo-client.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const MARK = '[ai-zen handoff]';

describe('Kilo Code hooks (install-hooks kilo), with the real client', { timeout: KILO_TEST_MS }, () => {
  let fake: FakeOpenAI;
  let daemon: DaemonRepo;
  let kilo: KiloHome;
  let debugLog: string;

  beforeEach(async () => {
    fake = await startFakeOpenAI();
    answerTitles(fake);
    daemon = await makeDaemonRepo({ config: { agents: { kilo: { graceSeconds: 0 } } } });
    kilo = await makeKiloHome(path.dirname(daemon.root), { baseURL: fake.baseURL, context: 100_000 });
    daemon.env.XDG_DATA_HOME = kilo.dataHome;
    daemon.env.XDG_CONFIG_HOME = kilo.configHome;
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

  const settingsFile = () => path.join(daemon.root, '.kilo', 'kilo.json');
  const hookEnv = () => ({
    AI_ZEN_HOME: daemon.env.AI_ZEN_HOME!,
    XDG_RUNTIME_DIR: daemon.env.XDG_RUNTIME_DIR!,
    AI_ZEN_HOOK_DEBUG: debugLog,
  });

  it('kilo: install-hooks kilo adds ai-zen’s plugin to the project’s .kilo/kilo.json (the user’s settings and the file’s mode kept, idempotent, kept out of git) and uninstall-hooks kilo removes it and nothing else', async () => {
    await fs.mkdir(path.join(daemon.root, '.kilo'));
    const theirs = { theme: 'dark', plugin: ['kilo-their-plugin'] };
    await fs.writeFile(settingsFile(), `${JSON.stringify(theirs, null, 2)}\n`, { mode: 0o640 });
    await fs.chmod(settingsFile(), 0o640);

    const installed = await daemon.daemon(['install-hooks', 'kilo']);
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain('hooks installed in .kilo/kilo.json');
    const after = JSON.parse(await fs.readFile(settingsFile(), 'utf8'));
    const plugin = path.join(daemon.env.AI_ZEN_HOME!, 'kilo', 'ai-zen-hooks.js');
    expect(after).toEqual({ theme: 'dark', plugin: ['kilo-their-plugin', pathToFileURL(plugin).href] });
    expect((await fs.stat(settingsFile())).mode & 0o777).toBe(0o640);
    const source = await fs.readFile(plugin, 'utf8');
    for (const event of ['Stop', 'PreCompact', 'SessionStart']) expect(source).toMatch(new RegExp(` hook kilo ${event}"`));
    expect(source).toContain(`const APP = "kilo";`);
    expect(await fs.readFile(path.join(daemon.root, '.git', 'info', 'exclude'), 'utf8')).toContain('.kilo/kilo.json');
    expect(await daemon.repo.git('status', '--porcelain')).not.toContain('.kilo');
    const again = await daemon.daemon(['install-hooks', 'kilo']);
    expect(again.stdout).toContain('hooks already installed');
    expect(JSON.parse(await fs.readFile(settingsFile(), 'utf8'))).toEqual(after);

    const removed = await daemon.daemon(['uninstall-hooks', 'kilo']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("ai-zen's hooks removed");
    expect(JSON.parse(await fs.readFile(settingsFile(), 'utf8'))).toEqual(theirs);
    expect((await fs.stat(settingsFile())).mode & 0o777).toBe(0o640);
    expect((await daemon.daemon(['uninstall-hooks', 'kilo'])).stdout).toContain('no ai-zen hooks');
  });

  it('kilo run (a script) crossing with the plugin installed keeps its answer: stdout is the model’s last reply, Kilo is not asked to write, and the daemon has written the document (offline) before Kilo exits', async () => {
    expect((await daemon.daemon(['install-hooks', 'kilo'])).code).toBe(0);
    await daemon.start();
    fake.enqueue(
      reply().tool('bash', { command: 'ls', description: 'list' }).usage({ prompt_tokens: 20_000, completion_tokens: 20 }),
      reply().text('The --verbose flag is wired; 2 tests added.').usage({ prompt_tokens: 80_000, completion_tokens: 50 }),
    );
    const before = fake.requests.length;
    const result = await runKilo('add a --verbose flag to the CLI', { cwd: daemon.root, home: kilo, env: hookEnv() });
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
    expect(committed).toMatchObject({ agent: 'kilo', executor: 'offline' });
  });

  it('kilo writes its own document (self): at the threshold its session.idle gets the path and the skill as the next prompt, Kilo reads the brief and writes the file with its write tool, the daemon verifies, adopts and commits it; the next session that Kilo process starts (`/new`) is given the document and linked as its successor; a session is live while its Kilo runs', async () => {
    expect((await daemon.daemon(['install-hooks', 'kilo'])).code).toBe(0);
    await daemon.start();
    const request = 'add a --verbose flag to the CLI';
    let askedWith = '';
    const textOf = (received: { messages: unknown[] }) => JSON.stringify(received.messages);
    fake.enqueue(
      reply().tool('bash', { command: 'ls', description: 'list' }).usage({ prompt_tokens: 20_000, completion_tokens: 20 }),
      reply().text('The flag parser is in src/cli.ts.').usage({ prompt_tokens: 80_000, completion_tokens: 50 }),
    );
    // The model, given the Stop hook's reason as the next prompt, reads the brief it names, then writes the document.
    fake.handle((received) => {
      const last = received.lastUserText;
      if (!last.includes(MARK) || JSON.stringify(received.messages.at(-1)).includes('tool_call_id')) return undefined;
      return reply()
        .tool('read', { filePath: briefNamedIn(last) })
        .usage({ prompt_tokens: 84_000, completion_tokens: 20 });
    });
    fake.handle((received) => {
      const text = textOf(received);
      if (!text.includes(MARK) || received.messages.at(-1)?.role !== 'tool') return undefined;
      if (text.includes('Written by Kilo itself'))
        return reply().text('The handoff document is written.').usage({ prompt_tokens: 86_000, completion_tokens: 20 });
      askedWith = text;
      const docPath = /write tool to exactly this path: (\S+?\.md)/.exec(received.lastUserText)?.[1] ?? 'no-path-asked.md';
      const body = HANDOFF_SECTIONS.map(
        (heading) =>
          `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\nWritten by Kilo itself.` : 'The flag parser is in src/cli.ts; the flag is not wired yet.'}\n`,
      ).join('\n');
      return reply()
        .tool('write', { filePath: docPath, content: `# Handoff\n\n${body}` })
        .usage({ prompt_tokens: 85_000, completion_tokens: 400 });
    });
    const server = await startKiloServer({ cwd: daemon.root, home: kilo, env: hookEnv() });
    try {
      const session = await server.newSession();
      await server.prompt(session, request);
      // Running: the session is live — Kilo holds no lock; its process in the session's directory says so.
      await waitFor(async () => (await daemon.status()).sessions.find((listed) => listed.id === session)?.owner === 'live', {
        timeoutMs: 120_000,
        message: 'the running Kilo session shown live',
      });
      const committed = await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.state === 'committed'), {
        timeoutMs: 180_000,
        message: 'the committed handoff',
      });
      expect(askedWith).toContain(MARK);
      expect(askedWith).toContain('--- handoff skill ---');
      expect(committed).toMatchObject({ agent: 'kilo', executor: 'self' });
      const doc = await fs.readFile(path.join(daemon.root, committed.path), 'utf8');
      expect(doc).toContain('Written by Kilo itself.');
      expect(doc).toContain(`> ${request}`);
      expect((await daemon.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(committed.path);
      expect(committed.successorCommand).toMatch(/^kilo --prompt "Read the handoff document \.ai-zen\/handoffs\/.+\.md/);

      // The same Kilo process starts a fresh session (the TUI's /new): its SessionStart gets the breakpoint.
      const fresh = await server.newSession();
      const pointer = `ai-zen: Read the handoff document ${committed.path} (the previous session's record)`;
      await waitFor(async () => (await server.texts(fresh)).some((text) => text.startsWith(pointer)), {
        timeoutMs: 60_000,
        message: 'the fresh session given the document',
      });
      const before = fake.requests.length;
      fake.enqueue(reply().text('Reading the handoff document.').usage({ prompt_tokens: 9_000, completion_tokens: 10 }));
      await server.prompt(fresh, 'go on');
      // Kilo sends a person's prompt with its own environment details after it, in a part of their own.
      const goOn = (received: { lastUserText: string }) => received.lastUserText.split('\n\n<environment_details>')[0] === 'go on';
      await waitFor(() => fake.requests.slice(before).some(goOn), {
        timeoutMs: 60_000,
        message: 'the fresh session’s first request',
      });
      const first = fake.requests.slice(before).find(goOn)!;
      expect(JSON.stringify(first.messages)).toContain(pointer);
      await waitFor(
        async () =>
          (await daemon.daemon(['status', '--all'])).stdout
            .split('\n')
            .find((line) => line.startsWith(`  ${shortId(session)}  `))
            ?.includes(`handed off → ${shortId(fresh)}`) ?? false,
        { timeoutMs: 30_000, message: 'the handed-off session linked to the fresh one' },
      );
    } finally {
      await server.close();
    }
    const ended = (await daemon.status()).sessions.filter((listed) => listed.agent === 'kilo').map((listed) => listed.owner);
    // The fresh one is listed (the handed-off one only with --all): no Kilo runs any more.
    expect(ended).toEqual(['none']);
  });
});
