// For Qwen Code: `ai-zen-daemon install-hooks qwen` / `uninstall-hooks qwen` in the
// project's own `.qwen/settings.json`, and the hooks at work in the real client
// (`@qwen-code/qwen-code` 0.24.4, offline against the fake OpenAI-compatible server, a temp HOME) with
// a real daemon: at a terminal (`qwen -i`, registered as running) the Stop hook has Qwen write its own
// document (self), which the daemon verifies, commits and adopts, and the SessionStart hook names it to
// the next session; a one-shot `qwen "…"` (a script's run) keeps its answer and the daemon writes it.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../src/events.js';
import { type FakeOpenAI, type RecordedRequest, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { briefNamedIn } from '../support/brief-named.js';
import { makeQwenHome, QWEN_DEFAULT_WINDOW, type QwenHome, runQwen, startInteractiveQwen } from '../support/qwen-client.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const MARK = '[ai-zen handoff]';
const PINNED_MODEL = 'qwen3-max';
const PINNED_WINDOW = 262_144;
const share = (percent: number) => Math.round((QWEN_DEFAULT_WINDOW * percent) / 100);
const isMain = (request: RecordedRequest) => JSON.stringify(request.messages[0]?.content ?? '').includes('You are Qwen Code');
const stepOf = (request: RecordedRequest) => request.messages.filter((message) => message?.role === 'assistant').length;

describe('Qwen Code hooks (install-hooks qwen)', { timeout: 300_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let fake: FakeOpenAI | undefined;
  afterEach(async (context) => {
    if (process.env.X3_DEBUG && context.task.result?.state === 'fail' && daemon)
      console.log(
        await fs.readFile(path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log'), 'utf8').catch(() => 'no log'),
        await fs.readFile(path.join(path.dirname(daemon.root), 'hook-debug.log'), 'utf8').catch(() => 'no hook debug log'),
      );
    await daemon?.cleanup();
    await fake?.close();
    daemon = fake = undefined;
  });

  it('qwen: install-hooks qwen merges Stop, PreCompact and SessionStart into the project’s .qwen/settings.json (the user’s hooks and settings stay, the mode too, kept out of git), is idempotent, and uninstall-hooks qwen removes only ours; a broken file is one line and left alone', async () => {
    daemon = await makeDaemonRepo();
    const file = path.join(daemon.root, '.qwen', 'settings.json');
    await fs.mkdir(path.dirname(file));
    const theirs = { type: 'command', command: '/usr/local/bin/their-linter --stop', timeout: 5 };
    const mine = { model: { name: 'qwen3-coder-plus' }, hooks: { Stop: [{ hooks: [theirs] }] } };
    await fs.writeFile(file, JSON.stringify(mine, null, 2));
    await fs.chmod(file, 0o640);

    const installed = await daemon.daemon(['install-hooks', 'qwen']);
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain('hooks installed in .qwen/settings.json');
    expect(installed.stdout).toContain('kept out of git');
    const after = JSON.parse(await fs.readFile(file, 'utf8'));
    expect(after.model).toEqual(mine.model);
    expect(after.hooks.Stop[0]).toEqual({ hooks: [theirs] });
    for (const event of ['Stop', 'PreCompact', 'SessionStart'])
      expect(JSON.stringify(after.hooks[event])).toMatch(new RegExp(`hook qwen ${event}"`));
    expect((await fs.stat(file)).mode & 0o777).toBe(0o640);
    expect((await daemon.repo.git('status', '--porcelain')).trim()).toBe('');
    const again = await daemon.daemon(['install-hooks', 'qwen']);
    expect(again.stdout).toContain('hooks already installed');
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual(after);

    const removed = await daemon.daemon(['uninstall-hooks', 'qwen']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("ai-zen's hooks removed");
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual(mine);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o640);
    expect((await daemon.daemon(['uninstall-hooks', 'qwen'])).stdout).toContain('no ai-zen hooks');

    await fs.writeFile(file, '{ not json');
    const broken = await daemon.daemon(['install-hooks', 'qwen']);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr.trim().split('\n')).toHaveLength(1);
    expect(broken.stderr).not.toMatch(/\n\s+at /);
    expect(await fs.readFile(file, 'utf8')).toBe('{ not json');
  });

  /** A daemon watching a repo whose .qwen/settings.json has ai-zen's hooks, and a Qwen home for the client. */
  async function withHooks(): Promise<{
    repo: DaemonRepo;
    server: FakeOpenAI;
    qwen: QwenHome;
    events: AnyEvent[];
    hookEnv: Record<string, string>;
  }> {
    const server = await startFakeOpenAI();
    fake = server;
    const repo = await makeDaemonRepo({ config: { agents: { 'qwen-code': { graceSeconds: 0 } } } });
    daemon = repo;
    const qwen = await makeQwenHome(path.dirname(repo.root));
    Object.assign(repo.env, qwen.env);
    expect((await repo.daemon(['install-hooks', 'qwen'])).code).toBe(0);
    await repo.start();
    const events: AnyEvent[] = [];
    const client = await repo.connect();
    await client.subscribe((event: AnyEvent) => events.push(event));
    // The hooks find the daemon's socket (AI_ZEN_HOME, XDG_RUNTIME_DIR) as a user's shell would.
    const hookEnv = {
      AI_ZEN_HOME: repo.env.AI_ZEN_HOME!,
      XDG_RUNTIME_DIR: repo.env.XDG_RUNTIME_DIR!,
      AI_ZEN_HOOK_DEBUG: path.join(path.dirname(repo.root), 'hook-debug.log'),
    };
    return { repo, server, qwen, events, hookEnv };
  }

  it('qwen: with the hooks installed, a session at the terminal crossing handoffAt writes its own document (self): the Stop hook blocks with the path and the skill, Qwen writes it with write_file, the daemon verifies, commits and adopts it; the next session, one-shot on a pinned model in another process while the handed-off one is open, is told no document (only a successor is), and crossing too keeps its answer (a script’s run: the daemon writes that document itself before qwen exits)', async () => {
    const { repo: daemon, server: fake, qwen, events, hookEnv } = await withHooks();
    const request = 'add a --verbose flag to the CLI';
    const script = 'wire the --quiet flag too';
    let askedWith = '';
    let briefRequested = false;
    fake.handle((received) => {
      if (!isMain(received)) return reply().text('ok').usage({ prompt_tokens: 10, completion_tokens: 1 });
      const all = JSON.stringify(received.messages);
      // The one-shot run on the pinned model: under the threshold, then across (262,144 window).
      if (all.includes(script)) {
        if (stepOf(received) === 0)
          return reply()
            .tool('run_shell_command', { command: 'ls', description: 'look' })
            .usage({ prompt_tokens: Math.round(PINNED_WINDOW * 0.3), completion_tokens: 20 });
        return reply()
          .text('The --quiet flag is wired too.')
          .usage({ prompt_tokens: Math.round(PINNED_WINDOW * 0.72), completion_tokens: 20 });
      }
      if (all.includes(MARK) && !briefRequested) {
        // The Stop hook's reason names the brief: the model reads it first with read_file.
        briefRequested = true;
        return reply()
          .tool('read_file', { file_path: briefNamedIn(all.replace(/\\n/g, '\n')) })
          .usage({ prompt_tokens: share(73), completion_tokens: 20 });
      }
      if (all.includes(MARK) && !askedWith) {
        // The model, given the Stop hook's reason, writes the document at the path it names.
        askedWith = all;
        const target = /write the handoff document with your write_file tool to exactly this path: (\S+?\.md)/.exec(
          all.replace(/\\n/g, '\n'),
        )![1]!;
        const body = HANDOFF_SECTIONS.map(
          (heading) =>
            `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\nWritten by Qwen itself.` : 'The flag parser is in src/cli.ts; the flag is not wired yet.'}\n`,
        ).join('\n');
        return reply()
          .tool('write_file', { file_path: target, content: `# Handoff\n\n${body}` })
          .usage({ prompt_tokens: share(73), completion_tokens: 400 });
      }
      if (askedWith)
        return reply()
          .text('The handoff document is written.')
          .usage({ prompt_tokens: share(74), completion_tokens: 10 });
      // Under the threshold first (a session first seen above it waits for more), then across.
      if (stepOf(received) === 0)
        return reply()
          .tool('run_shell_command', { command: 'ls', description: 'look' })
          .usage({ prompt_tokens: share(30), completion_tokens: 20 });
      return reply()
        .text('The flag parser is in src/cli.ts.')
        .usage({ prompt_tokens: share(72), completion_tokens: 20 });
    });
    // A person at the terminal: `qwen -i`, registered in ~/.qwen/sessions/ while it runs (shown live).
    await using terminal = await startInteractiveQwen(request, { cwd: daemon.root, home: qwen, baseURL: fake.baseURL, env: hookEnv });
    await waitFor(
      async () => (await daemon.status()).sessions.some((session) => session.agent === 'qwen-code' && session.owner === 'live'),
      { timeoutMs: 120_000, message: 'the Qwen session at the terminal shown live' },
    );
    await terminal.waitForScreen(/The handoff document is written\./, { timeoutMs: 150_000 });
    expect(askedWith).toContain('--- handoff skill ---');
    expect(askedWith).toContain('qwen -i');

    const committed = await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 90_000,
      message: 'the committed handoff',
    });
    expect(committed).toMatchObject({ agent: 'qwen-code', executor: 'self' });
    expect(committed.checks).toEqual({ sections: [], facts: [], files: [], commands: [] });
    const doc = await fs.readFile(path.join(daemon.root, committed.path), 'utf8');
    expect(doc).toContain('Written by Qwen itself.');
    expect(doc).toContain(`> ${request}`);
    expect((await daemon.repo.git('show', '--name-only', '--format=', committed.commit!)).trim()).toBe(committed.path);
    expect(events.find((event) => event.name === 'handoff.written')?.payload).toMatchObject({ agent: 'qwen-code', executor: 'self' });

    // The next session, a script's one-shot run on a pinned model in another process: SessionStart names no document …
    const asked = fake.requests.length;
    const result = await runQwen(script, { cwd: daemon.root, home: qwen, baseURL: fake.baseURL, model: PINNED_MODEL, env: hookEnv });
    expect(result.code, result.stderr).toBe(0);
    // (The session at the terminal is still open: only this run's requests.)
    const first = fake.requests.slice(asked).find((received) => isMain(received) && JSON.stringify(received.messages).includes(script))!;
    expect(first.body.model).toBe(PINNED_MODEL);
    // Only a successor is pointed at the document: this run starts while the handed-off session is still open at the terminal.
    expect(JSON.stringify(first.messages)).not.toContain(committed.path);
    // … and, crossing in turn, keeps its answer: the Stop hook does not block, the daemon wrote the document before qwen went on.
    expect(result.stdout.trim()).toBe('The --quiet flag is wired too.');
    const ofScript = fake.requests.slice(asked).filter((received) => JSON.stringify(received.messages).includes(script));
    expect(ofScript.some((received) => JSON.stringify(received.messages).includes(MARK))).toBe(false);
    const second = (await handoffDocs(daemon.root)).find((name) => name !== committed.path);
    expect(second).toBeDefined();
    expect(await fs.readFile(path.join(daemon.root, second!), 'utf8')).toContain(script);
    const offline = await waitFor(
      async () => (await daemon.status()).handoffs.find((entry) => entry.path === second && entry.state === 'committed'),
      { timeoutMs: 60_000, message: 'the script’s handoff committed' },
    );
    expect(offline).toMatchObject({ agent: 'qwen-code', executor: 'offline' });
  });
});
