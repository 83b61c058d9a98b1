// §3–4 for Gemini CLI: `ai-zen-daemon install-hooks gemini` / `uninstall-hooks gemini` in the
// project's `.gemini/settings.json`, and with the real client (`@google/gemini-cli` 0.61 against the
// fake Gemini server, a temp GEMINI_CLI_HOME, a trusted workspace) and a real daemon: the AfterAgent
// hook blocks with the document's path and the skill, Gemini writes the document with its own
// write_file tool (self), the daemon verifies and commits it; `continue --in gemini` names the
// successor, which starts fresh from the document and is told of it by the SessionStart hook.
import { parse as parseShell } from 'shell-quote';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { geminiReply, startFakeGemini, type FakeGemini, type RecordedGeminiRequest } from '../support/fake-gemini.js';
import { geminiPrompt, makeGeminiHome, type GeminiHome } from '../support/gemini-client.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { briefNamedIn } from '../support/brief-named.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const MARK = '[ai-zen handoff]';
const MODELS = [
  { name: 'the default model (no --model)', pinned: undefined, window: 1_048_576 },
  { name: 'a pinned model (-m gemma-4-31b-it)', pinned: 'gemma-4-31b-it', window: 256_000 },
] as const;

describe('X3 gemini hooks (install-hooks gemini), with the real client', { timeout: 240_000 }, () => {
  let fake: FakeGemini;
  let daemon: DaemonRepo | undefined;
  let gemini: GeminiHome;
  let debugLog: string;

  beforeEach(async () => {
    fake = await startFakeGemini();
  });
  afterEach(async (context) => {
    if (process.env.X3_DEBUG && context.task.result?.state === 'fail' && daemon) {
      console.log(await fs.readFile(path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log'), 'utf8').catch(() => 'no log'));
      console.log(await fs.readFile(debugLog, 'utf8').catch(() => 'no hook debug log'));
    }
    await daemon?.cleanup();
    daemon = undefined;
    await fake?.close();
  });

  async function setUp(): Promise<DaemonRepo> {
    daemon = await makeDaemonRepo({ config: { agents: { gemini: { graceSeconds: 0 } } } });
    gemini = await makeGeminiHome(path.dirname(daemon.root));
    daemon.env.GEMINI_CLI_HOME = gemini.home;
    debugLog = path.join(path.dirname(daemon.root), 'hook-debug.log');
    return daemon;
  }
  const settingsFile = (repo: DaemonRepo) => path.join(repo.root, '.gemini', 'settings.json');
  /** How `gemini` runs here: its hooks find the daemon's socket (AI_ZEN_HOME, XDG_RUNTIME_DIR) as a user's would. */
  const run = (repo: DaemonRepo) => ({
    cwd: repo.root,
    home: gemini,
    baseURL: fake.baseURL,
    env: { AI_ZEN_HOME: repo.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: repo.env.XDG_RUNTIME_DIR!, AI_ZEN_HOOK_DEBUG: debugLog },
  });
  const handoffAsked = (request: RecordedGeminiRequest) => request.lastUserText.includes(MARK);

  it('X3 gemini: install-hooks gemini puts AfterAgent, PreCompress and SessionStart into the project’s .gemini/settings.json (the user’s settings and hooks stay, the file’s mode is kept, it is kept out of git), is idempotent, and uninstall-hooks gemini gives the file back as it was', async () => {
    const repo = await setUp();
    const theirs = { type: 'command', command: '/usr/local/bin/their-linter --after', timeout: 5000 };
    const before = `${JSON.stringify({ model: { name: 'gemini-2.5-pro' }, hooks: { AfterAgent: [{ hooks: [theirs] }] } }, null, 2)}\n`;
    await fs.mkdir(path.dirname(settingsFile(repo)));
    await fs.writeFile(settingsFile(repo), before, { mode: 0o640 });
    await fs.chmod(settingsFile(repo), 0o640);

    const installed = await repo.daemon(['install-hooks', 'gemini']);
    expect(installed.stderr).toBe('');
    expect(installed.stdout).toContain('hooks installed in .gemini/settings.json');
    expect(installed.stdout).toContain('.gemini/settings.json is kept out of git');
    const after = JSON.parse(await fs.readFile(settingsFile(repo), 'utf8'));
    expect(after.model).toEqual({ name: 'gemini-2.5-pro' });
    expect(after.hooks.AfterAgent[0]).toEqual({ hooks: [theirs] });
    expect(after.hooks.AfterAgent[1].hooks[0]).toMatchObject({
      type: 'command',
      command: expect.stringMatching(/ hook gemini Stop$/),
      timeout: 60_000,
    });
    expect(after.hooks.PreCompress[0].hooks[0].command).toMatch(/ hook gemini PreCompact$/);
    expect(after.hooks.SessionStart[0].hooks[0].command).toMatch(/ hook gemini SessionStart$/);
    expect((await fs.stat(settingsFile(repo))).mode & 0o777).toBe(0o640);
    expect(await repo.repo.git('status', '--porcelain')).not.toContain('.gemini');
    expect((await repo.daemon(['install-hooks', 'gemini'])).stdout).toContain('hooks already installed');

    const removed = await repo.daemon(['uninstall-hooks', 'gemini']);
    expect(removed.stdout).toContain("ai-zen's hooks removed");
    expect(JSON.parse(await fs.readFile(settingsFile(repo), 'utf8'))).toEqual(JSON.parse(before));
    expect((await fs.stat(settingsFile(repo))).mode & 0o777).toBe(0o640);
    expect((await repo.daemon(['uninstall-hooks', 'gemini'])).stdout).toContain('no ai-zen hooks');
    // A broken file is not touched: one line, non-zero.
    await fs.writeFile(settingsFile(repo), '{ not json');
    const broken = await repo.daemon(['install-hooks', 'gemini']);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr.trim().split('\n')).toHaveLength(1);
    expect(await fs.readFile(settingsFile(repo), 'utf8')).toBe('{ not json');
  });

  for (const model of MODELS)
    it(`X3 gemini on ${model.name} writes its own document (self): at the threshold its AfterAgent hook blocks with the path and the skill, Gemini writes the file with write_file (the turn goes on after the tool: the transcript says it answered the block), the daemon verifies and commits it; continue --in gemini --print names \`gemini -i\`, and that fresh session is told of the document by its SessionStart hook`, async () => {
      const repo = await setUp();
      const tokens = (percent: number) => Math.ceil((model.window * percent) / 100);
      const pinned = model.pinned ? { model: model.pinned } : {};
      expect((await repo.daemon(['install-hooks', 'gemini'])).code).toBe(0);
      const settingsNow = JSON.parse(await fs.readFile(settingsFile(repo), 'utf8'));
      settingsNow.hooks.AfterAgent.unshift({
        hooks: [{ type: 'command', command: 'cat >> /tmp/gx/afteragent.log; echo >> /tmp/gx/afteragent.log', timeout: 5000 }],
      });
      settingsNow.hooks.SessionStart.unshift({
        hooks: [{ type: 'command', command: 'cat >> /tmp/gx/afteragent.log; echo >> /tmp/gx/afteragent.log', timeout: 5000 }],
      });
      await fs.writeFile(settingsFile(repo), JSON.stringify(settingsNow));
      await repo.start();
      const request = 'add a --verbose flag to the CLI';
      let askedWith = '';
      let reason = '';
      fake.handle((received) => {
        if (askedWith) return undefined;
        // The model, given the AfterAgent hook's reason, reads the brief it names with read_file first.
        if (handoffAsked(received) && !reason) {
          reason = received.lastUserText;
          return geminiReply()
            .call('read_file', { file_path: briefNamedIn(reason) })
            .usage({ prompt: tokens(49), cached: tokens(48) });
        }
        const brief = readFileOutput(received);
        if (!reason || brief === null) return undefined;
        // Then writes the document at the path it names, from what the read returned.
        askedWith = `${reason}\n${brief}`;
        const docPath = /exactly this path: (\S+\.md)/.exec(askedWith)![1]!;
        const body = HANDOFF_SECTIONS.map(
          (heading) =>
            `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\nWritten by Gemini itself.` : 'The flag parser is in src/cli.ts; the flag is not wired yet.'}\n`,
        ).join('\n');
        return geminiReply()
          .call('write_file', { file_path: docPath, content: `# Handoff\n\n${body}` })
          .usage({ prompt: tokens(49), cached: tokens(48) });
      });
      fake.enqueue(
        // Under the threshold first (a session first seen above it would wait 10 more points), then across.
        geminiReply()
          .call('run_shell_command', { command: 'ls', description: 'look around' })
          .usage({ prompt: tokens(30) }),
        geminiReply()
          .text('The flag parser is in src/cli.ts.')
          .usage({ prompt: tokens(48) }),
        // After write_file: the model's closing words, then Gemini's AfterAgent again (stop_hook_active).
        geminiReply()
          .text('The handoff document is written.')
          .usage({ prompt: tokens(50) }),
      );
      const result = await geminiPrompt(request, { ...run(repo), ...pinned });
      expect(result.code, result.stderr).toBe(0);
      expect(askedWith).toContain('--- handoff skill ---');
      expect(askedWith).toContain('gemini -i "Read the handoff document');

      const committed = await waitFor(async () => (await repo.status()).handoffs.find((entry) => entry.state === 'committed'), {
        timeoutMs: 60_000,
        message: 'the committed handoff',
      });
      expect(committed).toMatchObject({ agent: 'gemini', executor: 'self' });
      if (model.pinned) expect(fake.turns().every((turn) => turn.model === model.pinned)).toBe(true);
      const doc = await fs.readFile(path.join(repo.root, committed.path), 'utf8');
      expect(doc).toContain('Written by Gemini itself.');
      expect(doc).toContain(`> ${request}`);
      expect((await repo.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(committed.path);

      // §4 once (it does not depend on the model): the successor in Gemini, from the document.
      if (model.pinned) return;
      const [session] = (await repo.status()).sessions.filter((entry) => entry.agent === 'gemini');
      const printed = await repo.daemon(['continue', shortId(session!.id), '--in', 'gemini', '--print']);
      expect(printed.stderr).toBe('');
      expect(printed.code).toBe(0);
      expect(parseShell(printed.stdout.trim()).slice(0, 2)).toEqual(['gemini', '-i']);
      expect(printed.stdout).toContain(committed.path);

      // The successor command works: a fresh session (a new transcript) that starts from the document
      // alone, and whose SessionStart hook names the newest document to the model.
      const prompt = /^gemini -i "((?:[^"\\]|\\.)*)"$/.exec(committed.successorCommand!)![1]!.replace(/\\(["$`\\])/g, '$1');
      fake.enqueue(geminiReply().text('Reading the handoff document.').usage({ prompt: 12_000 }));
      const successor = await geminiPrompt(prompt, { ...run(repo), ...pinned });
      expect(successor.code, successor.stderr).toBe(0);
      const first = fake.turns().at(-1)!;
      const sent = JSON.stringify(first.contents);
      expect(first.lastUserText).toContain(committed.path);
      expect(sent).toContain(`the newest handoff document of this repo is ${committed.path}`);
      expect(sent).not.toContain(request);
      // The daemon links them: the new session continues from the document, written for the first one.
      const continued = await waitFor(
        async () => (await repo.status()).sessions.find((entry) => entry.agent === 'gemini' && entry.previous?.path === committed.path),
        { timeoutMs: 60_000, message: 'the successor listed as continuing from the document' },
      );
      expect(continued.previous).toEqual({ path: committed.path, sessionId: session!.id });
      expect(continued.id).not.toBe(session!.id);
      // The one it continues is handed off → it (folded out of the open list; `status --all` shows it).
      const all = (await repo.daemon(['status', '--all'])).stdout.split('\n');
      expect(all.find((line) => line.includes(`${shortId(session!.id)}  `))).toContain(`handed off → ${shortId(continued.id)}`);
    });
});

/** What Gemini's read_file returned in this request (its output text), or null when it holds no read_file result. */
function readFileOutput(received: RecordedGeminiRequest): string | null {
  const read = received.functionResponses.find((response) => response?.name === 'read_file');
  if (!read) return null;
  return typeof read.response?.output === 'string' ? read.response.output : JSON.stringify(read.response);
}
