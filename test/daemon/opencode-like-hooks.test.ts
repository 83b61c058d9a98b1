// For opencode and Kilo Code (opencode under its own name, which loads opencode's JS plugins): neither
// has command hooks, and `ai-zen-daemon install-hooks <app>` names ai-zen's plugin in the project's
// `.<app>/<app>.json`; its session.idle is ai-zen's Stop, session.created its SessionStart. One body
// for both, each with its real client (opencode 1.18.33, Kilo's CLI 7.7.9; offline against the fake
// OpenAI server, a temp HOME).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { briefNamedIn } from '../support/brief-named.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { KILO } from '../support/kilo-client.js';
import { OPENCODE } from '../support/opencode-client.js';
import { answerTitles, type OpencodeHome, runClient, startClientServer } from '../support/opencode-like-client.js';
import { waitFor } from '../support/wait-for.js';
import { type DaemonRepo, handoffDocs } from './daemon-harness.js';
import { makeOpencodeLikeRepo } from './opencode-like-repo.js';

const MARK = '[ai-zen handoff]';

/** How long the self-written handoff waits on each step of a turn driven through `serve`: Kilo's turns are heavier. */
const WAITS = {
  opencode: { live: 60_000, committed: 90_000, freshSession: 30_000 },
  kilo: { live: 120_000, committed: 180_000, freshSession: 60_000 },
} as const;

for (const client of [OPENCODE, KILO]) {
  const { app, name } = client;
  const waits = WAITS[app];

  describe(`${name} hooks (install-hooks ${app}), with the real client`, { timeout: client.testTimeoutMs }, () => {
    let fake: FakeOpenAI;
    let daemon: DaemonRepo;
    let home: OpencodeHome;
    let debugLog: string;

    beforeEach(async () => {
      fake = await startFakeOpenAI();
      answerTitles(fake);
      ({ daemon, home } = await makeOpencodeLikeRepo(client, { baseURL: fake.baseURL, context: 100_000, graceSeconds: 0 }));
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

    const settingsFile = () => path.join(daemon.root, `.${app}`, `${app}.json`);
    const hookEnv = () => ({
      AI_ZEN_HOME: daemon.env.AI_ZEN_HOME!,
      XDG_RUNTIME_DIR: daemon.env.XDG_RUNTIME_DIR!,
      AI_ZEN_HOOK_DEBUG: debugLog,
    });

    it(`${app}: install-hooks ${app} adds ai-zen’s plugin to the project’s .${app}/${app}.json (the user’s settings and the file’s mode kept, idempotent, kept out of git) and uninstall-hooks ${app} removes it and nothing else`, async () => {
      await fs.mkdir(path.join(daemon.root, `.${app}`));
      const theirs = { theme: 'dark', plugin: [`${app}-their-plugin`] };
      await fs.writeFile(settingsFile(), `${JSON.stringify(theirs, null, 2)}\n`, { mode: 0o640 });
      await fs.chmod(settingsFile(), 0o640);

      const installed = await daemon.daemon(['install-hooks', app]);
      expect(installed.stderr).toBe('');
      expect(installed.code).toBe(0);
      expect(installed.stdout).toContain(`hooks installed in .${app}/${app}.json`);
      const after = JSON.parse(await fs.readFile(settingsFile(), 'utf8'));
      const plugin = path.join(daemon.env.AI_ZEN_HOME!, app, 'ai-zen-hooks.js');
      expect(after).toEqual({ theme: 'dark', plugin: [`${app}-their-plugin`, pathToFileURL(plugin).href] });
      expect((await fs.stat(settingsFile())).mode & 0o777).toBe(0o640);
      const source = await fs.readFile(plugin, 'utf8');
      for (const event of ['Stop', 'PreCompact', 'SessionStart']) expect(source).toMatch(new RegExp(` hook ${app} ${event}"`));
      expect(source).toContain(`const APP = "${app}";`);
      expect(await fs.readFile(path.join(daemon.root, '.git', 'info', 'exclude'), 'utf8')).toContain(`.${app}/${app}.json`);
      expect(await daemon.repo.git('status', '--porcelain')).not.toContain(`.${app}`);
      const again = await daemon.daemon(['install-hooks', app]);
      expect(again.stdout).toContain('hooks already installed');
      expect(JSON.parse(await fs.readFile(settingsFile(), 'utf8'))).toEqual(after);

      const removed = await daemon.daemon(['uninstall-hooks', app]);
      expect(removed.code).toBe(0);
      expect(removed.stdout).toContain("ai-zen's hooks removed");
      expect(JSON.parse(await fs.readFile(settingsFile(), 'utf8'))).toEqual(theirs);
      expect((await fs.stat(settingsFile())).mode & 0o777).toBe(0o640);
      expect((await daemon.daemon(['uninstall-hooks', app])).stdout).toContain('no ai-zen hooks');
    });

    it(`${app} run (a script) crossing with the plugin installed keeps its answer: stdout is the model’s last reply, ${name} is not asked to write, and the daemon has written the document (offline) before ${name} exits`, async () => {
      expect((await daemon.daemon(['install-hooks', app])).code).toBe(0);
      await daemon.start();
      fake.enqueue(
        reply().tool('bash', { command: 'ls', description: 'list' }).usage({ prompt_tokens: 20_000, completion_tokens: 20 }),
        reply().text('The --verbose flag is wired; 2 tests added.').usage({ prompt_tokens: 80_000, completion_tokens: 50 }),
      );
      const before = fake.requests.length;
      const result = await runClient('add a --verbose flag to the CLI', { cwd: daemon.root, home, env: hookEnv() });
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
      expect(committed).toMatchObject({ agent: app, executor: 'offline' });
    });

    it(`${app} writes its own document (self): at the threshold its session.idle gets the path and the skill as the next prompt, ${name} reads the brief and writes the file with its write tool, the daemon verifies, adopts and commits it; the next session that ${name} process starts (\`/new\`) is given the document and linked as its successor; a session is live while its ${name} runs`, async () => {
      expect((await daemon.daemon(['install-hooks', app])).code).toBe(0);
      await daemon.start();
      const request = 'add a --verbose flag to the CLI';
      const signature = `Written by ${name} itself.`;
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
        if (text.includes(signature))
          return reply().text('The handoff document is written.').usage({ prompt_tokens: 86_000, completion_tokens: 20 });
        askedWith = text;
        const docPath = /write tool to exactly this path: (\S+?\.md)/.exec(received.lastUserText)?.[1] ?? 'no-path-asked.md';
        const body = HANDOFF_SECTIONS.map(
          (heading) =>
            `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\n${signature}` : 'The flag parser is in src/cli.ts; the flag is not wired yet.'}\n`,
        ).join('\n');
        return reply()
          .tool('write', { filePath: docPath, content: `# Handoff\n\n${body}` })
          .usage({ prompt_tokens: 85_000, completion_tokens: 400 });
      });
      const server = await startClientServer({ cwd: daemon.root, home, env: hookEnv() });
      try {
        const session = await server.newSession();
        await server.prompt(session, request);
        // Running: the session is live — the client holds no lock; its process in the session's directory says so.
        await waitFor(async () => (await daemon.status()).sessions.find((listed) => listed.id === session)?.owner === 'live', {
          timeoutMs: waits.live,
          message: `the running ${name} session shown live`,
        });
        const committed = await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.state === 'committed'), {
          timeoutMs: waits.committed,
          message: 'the committed handoff',
        });
        expect(askedWith).toContain(MARK);
        expect(askedWith).toContain('--- handoff skill ---');
        expect(committed).toMatchObject({ agent: app, executor: 'self' });
        const doc = await fs.readFile(path.join(daemon.root, committed.path), 'utf8');
        expect(doc).toContain(signature);
        expect(doc).toContain(`> ${request}`);
        expect((await daemon.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(committed.path);
        expect(committed.successorCommand).toMatch(new RegExp(`^${app} --prompt "Read the handoff document \\.ai-zen/handoffs/.+\\.md`));

        // The same client process starts a fresh session (the TUI's /new): its SessionStart gets the breakpoint.
        const fresh = await server.newSession();
        const pointer = `ai-zen: Read the handoff document ${committed.path} (the previous session's record)`;
        await waitFor(async () => (await server.texts(fresh)).some((text) => text.startsWith(pointer)), {
          timeoutMs: waits.freshSession,
          message: 'the fresh session given the document',
        });
        const before = fake.requests.length;
        fake.enqueue(reply().text('Reading the handoff document.').usage({ prompt_tokens: 9_000, completion_tokens: 10 }));
        await server.prompt(fresh, 'go on');
        const goOn = (received: { lastUserText: string }) => client.typedIn(received.lastUserText) === 'go on';
        await waitFor(() => fake.requests.slice(before).some(goOn), {
          timeoutMs: waits.freshSession,
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
      const ended = (await daemon.status()).sessions.filter((listed) => listed.agent === app).map((listed) => listed.owner);
      // The fresh one is listed (the handed-off one only with --all): no client runs any more.
      expect(ended).toEqual(['none']);
    });
  });
}
