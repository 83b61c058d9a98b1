// For pi: pi has no command hooks but extensions, and `ai-zen-daemon install-hooks pi`
// names ai-zen's extension in the project's `.pi/settings.json`; its agent_end is ai-zen's Stop.
// With the real client (0.73.1, offline against the fake Anthropic server, a temp HOME) run as a
// person runs it (`pi --mode rpc`: its extensions see a UI), crossing the threshold makes pi write
// its own handoff document (self), which the daemon verifies, adopts and commits.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { briefNamedIn } from '../support/brief-named.js';
import { makePiHome, type PiHome, runPi, startPiRpc } from '../support/pi-client.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const MARK = '[ai-zen handoff]';

describe('pi hooks (install-hooks pi), with the real client', { timeout: 120_000 }, () => {
  let fake: FakeAnthropic;
  let daemon: DaemonRepo;
  let pi: PiHome;
  let debugLog: string;

  beforeEach(async () => {
    fake = await startFakeAnthropic();
    daemon = await makeDaemonRepo({ config: { agents: { pi: { graceSeconds: 0, handoffAtTokens: 100_000 } } } });
    pi = await makePiHome(path.dirname(daemon.root), { baseURL: fake.baseURL });
    daemon.env.PI_CODING_AGENT_DIR = pi.agentDir;
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

  const settingsFile = () => path.join(daemon.root, '.pi', 'settings.json');

  it('pi: install-hooks pi adds ai-zen’s extension to the project’s .pi/settings.json (the user’s settings and the file’s mode kept, idempotent, kept out of git) and uninstall-hooks pi removes it and nothing else', async () => {
    await fs.mkdir(path.join(daemon.root, '.pi'));
    const theirs = { theme: 'dark', extensions: ['/opt/their-extension.ts'] };
    await fs.writeFile(settingsFile(), `${JSON.stringify(theirs, null, 2)}\n`, { mode: 0o640 });
    await fs.chmod(settingsFile(), 0o640);

    const installed = await daemon.daemon(['install-hooks', 'pi']);
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain('hooks installed in .pi/settings.json');
    const after = JSON.parse(await fs.readFile(settingsFile(), 'utf8'));
    const extension = path.join(daemon.env.AI_ZEN_HOME!, 'pi', 'ai-zen-hooks.ts');
    expect(after).toEqual({ theme: 'dark', extensions: ['/opt/their-extension.ts', extension] });
    expect((await fs.stat(settingsFile())).mode & 0o777).toBe(0o640);
    const source = await fs.readFile(extension, 'utf8');
    for (const event of ['Stop', 'PreCompact', 'SessionStart']) expect(source).toMatch(new RegExp(` hook pi ${event}"`));
    expect(await fs.readFile(path.join(daemon.root, '.git', 'info', 'exclude'), 'utf8')).toContain('.pi/settings.json');
    const again = await daemon.daemon(['install-hooks', 'pi']);
    expect(again.stdout).toContain('hooks already installed');
    expect(JSON.parse(await fs.readFile(settingsFile(), 'utf8'))).toEqual(after);

    const removed = await daemon.daemon(['uninstall-hooks', 'pi']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("ai-zen's hooks removed");
    expect(JSON.parse(await fs.readFile(settingsFile(), 'utf8'))).toEqual(theirs);
    expect((await fs.stat(settingsFile())).mode & 0o777).toBe(0o640);
    expect((await daemon.daemon(['uninstall-hooks', 'pi'])).stdout).toContain('no ai-zen hooks');
  });

  it('pi writes its own document (self), live while it runs: at the threshold its Stop (agent_end) gets the path and the skill, pi writes the file with its write tool, the daemon verifies, adopts and commits it', async () => {
    expect((await daemon.daemon(['install-hooks', 'pi'])).code).toBe(0);
    await daemon.start();
    const request = 'add a --verbose flag to the CLI';
    let askedWith = '';
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    fake.enqueue(
      // Under the threshold first (a session first seen above it would wait 10 more points), then across.
      anthropicReply().tool('bash', { command: 'ls' }).usage({ input_tokens: 20_000, output_tokens: 20 }),
      anthropicReply().text('The flag parser is in src/cli.ts.').until(gate).usage({ input_tokens: 120_000, output_tokens: 50 }),
      // The model, given the Stop hook's reason as the next message, reads the brief it names first.
      (received) =>
        anthropicReply()
          .tool('read', { path: briefNamedIn(received.lastUserText) })
          .usage({ input_tokens: 124_000, output_tokens: 20 }),
      (received) => {
        // Then writes the document where it says, from the reason and what the read returned.
        askedWith = received.allText;
        const docPath = /write tool to exactly this path: (\S+\.md)/.exec(askedWith)?.[1] ?? 'no-path-asked.md';
        const body = HANDOFF_SECTIONS.map(
          (heading) =>
            `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\nWritten by pi itself.` : 'The flag parser is in src/cli.ts; the flag is not wired yet.'}\n`,
        ).join('\n');
        return anthropicReply()
          .tool('write', { path: docPath, content: `# Handoff\n\n${body}` })
          .usage({ input_tokens: 125_000, output_tokens: 400 });
      },
      anthropicReply().text('The handoff document is written.').usage({ input_tokens: 126_000, output_tokens: 20 }),
    );
    const running = startPiRpc([], {
      cwd: daemon.root,
      home: pi,
      env: { AI_ZEN_HOME: daemon.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: daemon.env.XDG_RUNTIME_DIR!, AI_ZEN_HOOK_DEBUG: debugLog },
    });
    try {
      running.prompt(request);
      // Running (its second reply held until then): the session is live — pi holds no lock; its process in the session's folder says so.
      try {
        await waitFor(async () => (await daemon.status()).sessions.find((session) => session.agent === 'pi')?.owner === 'live', {
          timeoutMs: 60_000,
          message: 'the running pi session shown live',
        });
      } finally {
        release();
      }
      const committed = await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.state === 'committed'), {
        timeoutMs: 60_000,
        message: 'the committed handoff',
      });
      expect(askedWith).toContain(MARK);
      expect(askedWith).toContain('--- handoff skill ---');
      expect(askedWith).toContain('Read the handoff document');
      expect(committed).toMatchObject({ agent: 'pi', executor: 'self' });
      const doc = await fs.readFile(path.join(daemon.root, committed.path), 'utf8');
      expect(doc).toContain('Written by pi itself.');
      expect(doc).toContain(`> ${request}`);
      expect((await daemon.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(committed.path);
      expect(committed.successorCommand).toMatch(
        /^pi "Read the handoff document \.ai-zen\/handoffs\/.+\.md \(the previous session's record\)/,
      );
      // pi stopped after writing it: no request past the scripted four.
      await waitFor(() => fake.pending() === 0 && running.events.filter((event) => event.type === 'agent_end').length === 2, {
        timeoutMs: 30_000,
        message: 'pi idle after its second stop',
      });
    } finally {
      await running.close();
    }
    expect((await daemon.status()).sessions.find((session) => session.agent === 'pi')?.owner).toBe('none');
  });

  it('pi -p (a script) crossing with the hooks installed keeps its answer: stdout is the model’s last reply, pi is not asked to write, and the daemon has written the document (offline) before pi exits, pinned model; a fresh session’s SessionStart names that document to the model', async () => {
    expect((await daemon.daemon(['install-hooks', 'pi'])).code).toBe(0);
    await daemon.start();
    fake.enqueue(
      anthropicReply().tool('bash', { command: 'ls' }).usage({ input_tokens: 20_000, output_tokens: 20 }),
      anthropicReply().text('The --verbose flag is wired; 2 tests added.').usage({ input_tokens: 120_000, output_tokens: 50 }),
    );
    const before = fake.requests.length;
    const result = await runPi(['--model', 'anthropic/claude-sonnet-4-5', '-p', 'add a --verbose flag to the CLI'], {
      cwd: daemon.root,
      home: pi,
      env: { AI_ZEN_HOME: daemon.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: daemon.env.XDG_RUNTIME_DIR!, AI_ZEN_HOOK_DEBUG: debugLog },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('The --verbose flag is wired; 2 tests added.');
    expect(fake.requests.slice(before).some((request) => request.allText.includes(MARK))).toBe(false);
    // The Stop hook waited for the daemon's document: it is there when the script goes on.
    const [doc] = await handoffDocs(daemon.root);
    expect(doc).toBeDefined();
    const committed = await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 45_000,
      message: 'the committed handoff',
    });
    expect(committed).toMatchObject({ agent: 'pi', executor: 'offline' });

    // A fresh session's start: its SessionStart names the newest document to the model.
    fake.enqueue(anthropicReply().text('Reading it.').usage({ input_tokens: 9_000, output_tokens: 10 }));
    const fresh = await runPi(['-p', 'what next?'], {
      cwd: daemon.root,
      home: pi,
      env: { AI_ZEN_HOME: daemon.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: daemon.env.XDG_RUNTIME_DIR!, AI_ZEN_HOOK_DEBUG: debugLog },
    });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fake.requests.at(-1)!.allText).toContain(`the newest handoff document of this repo is ${committed.path}`);
  });
});
