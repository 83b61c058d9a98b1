// X3 §5 for Codex CLI: `ai-zen-daemon install-hooks codex [--trust]` and the hooks it installs, with
// the real client (`@openai/codex` 0.171 against the fake Responses server, a temp CODEX_HOME) and
// a real daemon. The trust step goes through Codex's own app-server, as `/hooks` in Codex does; the
// hooks then run in `codex exec` with no bypass flag.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../src/events.js';
import { CODEX_BIN, codexExec, makeCodexHome, type CodexHome, type CodexRunOptions } from '../support/codex-client.js';
import { startDbusSession, type DbusSession, type NotificationService } from '../support/dbus-session.js';
import { responsesReply, startFakeResponses, type FakeResponses, type RecordedResponsesRequest } from '../support/fake-responses.js';
import { waitFor } from '../support/wait-for.js';
import { DAEMON_BIN, handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { briefNamedIn } from '../support/brief-named.js';

/** The npm package's `codex` launcher, as a user's PATH would have it. */
/** The window Codex reports for gpt-5.5 (272k × 95%). */
const WINDOW = 258_400;
const tokens = (percent: number) => Math.round((WINDOW * percent) / 100);
const MARK = '[ai-zen handoff]';
const SECTIONS = HANDOFF_SECTIONS;

describe('X3 Codex hooks (install-hooks codex), with the real client', { timeout: 120_000 }, () => {
  let fake: FakeResponses;
  let bus: DbusSession;
  let notifications: NotificationService;
  let daemon: DaemonRepo | undefined;
  let codex: CodexHome;
  let events: AnyEvent[];
  let debugLog: string;

  beforeEach(async () => {
    fake = await startFakeResponses();
    bus = await startDbusSession();
    notifications = await bus.startNotificationService();
  });
  afterEach(async (context) => {
    if (process.env.X3_DEBUG && context.task.result?.state === 'fail' && daemon) {
      console.log(await fs.readFile(path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log'), 'utf8').catch(() => 'no log'));
      console.log(await fs.readFile(debugLog, 'utf8').catch(() => 'no hook debug log'));
    }
    await daemon?.cleanup();
    daemon = undefined;
    await bus?.stop();
    await fake?.close();
  });

  async function setUp(agents: object = { codex: { graceSeconds: 0 } }, extraConfig: string[] = []): Promise<DaemonRepo> {
    daemon = await makeDaemonRepo({ env: { ...bus.env, AI_ZEN_CODEX_BIN: CODEX_BIN }, config: { agents } });
    codex = await makeCodexHome(path.dirname(daemon.root), { baseURL: fake.baseURL, extraConfig });
    (daemon.env as Record<string, string>).CODEX_HOME = codex.codexHome;
    debugLog = path.join(path.dirname(daemon.root), 'hook-debug.log');
    return daemon;
  }

  async function startDaemon(repo: DaemonRepo): Promise<void> {
    await repo.start();
    const client = await repo.connect();
    events = [];
    await client.subscribe((event: AnyEvent) => events.push(event));
  }

  /** How `codex` runs here: its hooks find the daemon's socket (AI_ZEN_HOME, XDG_RUNTIME_DIR) as a user's would. */
  const run = (repo: DaemonRepo): CodexRunOptions => ({
    cwd: repo.root,
    home: codex,
    env: { AI_ZEN_HOME: repo.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: repo.env.XDG_RUNTIME_DIR!, AI_ZEN_HOOK_DEBUG: debugLog },
  });
  /** Codex's own override of the originator its rollout records: the interactive client's, not `codex exec`'s. */
  const atTheTerminal = (options: CodexRunOptions): CodexRunOptions => ({
    ...options,
    env: { ...options.env, CODEX_INTERNAL_ORIGINATOR_OVERRIDE: 'codex_cli_rs' },
  });
  const hooksFile = () => path.join(codex.codexHome, 'hooks.json');
  const readHooks = async () => JSON.parse(await fs.readFile(hooksFile(), 'utf8'));
  const handoffAsked = (request: RecordedResponsesRequest) => JSON.stringify(request.input).includes(MARK);

  it('X3 install-hooks codex merges ai-zen’s hooks into the user’s Codex hooks.json (theirs stay), is idempotent, --trust trusts ours and only ours through Codex’s app-server, and uninstall-hooks removes only ours', async () => {
    const repo = await setUp();
    const theirs = { type: 'command', command: '/usr/local/bin/their-linter --stop', timeout: 5 };
    await fs.writeFile(hooksFile(), JSON.stringify({ hooks: { Stop: [{ hooks: [theirs] }] } }));

    const installed = await repo.daemon(['install-hooks', 'codex']);
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain(`hooks installed in ${hooksFile()}`);
    expect(installed.stdout).toContain('/hooks');
    const after = await readHooks();
    expect(after.hooks.Stop[0]).toEqual({ hooks: [theirs] });
    for (const event of ['Stop', 'PreCompact', 'SessionStart'])
      expect(JSON.stringify(after.hooks[event])).toMatch(new RegExp(`hook codex ${event}"`));
    // Idempotent.
    const again = await repo.daemon(['install-hooks', 'codex']);
    expect(again.stdout).toContain('hooks already installed');
    expect(await readHooks()).toEqual(after);

    // Trusted through Codex's own app-server: ours, and not the user's own hook, whose trust (here a
    // stale one) stays as it was.
    const theirTrust = `[hooks.state."${hooksFile()}:stop:0:0"]\ntrusted_hash = "sha256:${'0'.repeat(64)}"\n`;
    await fs.appendFile(path.join(codex.codexHome, 'config.toml'), `\n${theirTrust}`);
    const trusted = await repo.daemon(['install-hooks', 'codex', '--trust'], { timeoutMs: 60_000 });
    expect(trusted.stderr).toBe('');
    expect(trusted.stdout).toContain("Codex now trusts ai-zen's 3 hooks (and no other)");
    const config = await fs.readFile(path.join(codex.codexHome, 'config.toml'), 'utf8');
    const trustedKeys = [...config.matchAll(/^\[hooks\.state\."([^"]+)"\]$/gm)].map((match) => match[1]);
    expect(trustedKeys.sort()).toEqual(
      [`${hooksFile()}:pre_compact:0:0`, `${hooksFile()}:session_start:0:0`, `${hooksFile()}:stop:0:0`, `${hooksFile()}:stop:1:0`].sort(),
    );
    expect(config).toContain(`trusted_hash = "sha256:${'0'.repeat(64)}"`);
    expect((await repo.daemon(['install-hooks', 'codex', '--trust'], { timeoutMs: 60_000 })).stdout).toContain(
      "Codex already trusted ai-zen's hooks",
    );

    const removed = await repo.daemon(['uninstall-hooks', 'codex']);
    expect(removed.stdout).toContain("ai-zen's hooks removed");
    expect(await readHooks()).toEqual({ hooks: { Stop: [{ hooks: [theirs] }] } });
    expect((await repo.daemon(['uninstall-hooks', 'codex'])).stdout).toContain('no ai-zen hooks');
    // A broken file is not touched: one line, non-zero.
    await fs.writeFile(hooksFile(), '{ not json');
    const broken = await repo.daemon(['install-hooks', 'codex']);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr.trim().split('\n')).toHaveLength(1);
    expect(await fs.readFile(hooksFile(), 'utf8')).toBe('{ not json');
  });

  it('X3 Codex writes its own document (self): the trusted Stop hook blocks with the path and the skill, Codex creates the file with apply_patch, the daemon verifies, commits and announces it; SessionStart then names it to a fresh session', async () => {
    const repo = await setUp();
    expect((await repo.daemon(['install-hooks', 'codex', '--trust'], { timeoutMs: 60_000 })).code).toBe(0);
    await startDaemon(repo);
    const request = 'add a --verbose flag to the CLI';
    let askedWith = '';
    let briefRead = false;
    fake.handle((received) => {
      if (!handoffAsked(received) || askedWith) return undefined;
      // The reason names the brief: Codex reads it first, through its shell.
      if (!briefRead) {
        briefRead = true;
        return responsesReply()
          .exec(`cat ${briefNamedIn(JSON.stringify(received.input))}`)
          .usage({ input_tokens: tokens(73), cached_tokens: tokens(72), output_tokens: 20 });
      }
      // The model, given the Stop hook's reason, creates the document at the path it names.
      askedWith = JSON.stringify(received.input);
      const docPath = /exactly this path \(relative to the repo root\): (\.ai-zen\/handoffs\/[^\s"\\]+\.md)/.exec(askedWith)![1]!;
      const body = SECTIONS.map(
        (heading) =>
          `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\nWritten by Codex itself.` : 'The flag parser is in src/cli.ts; the flag is not wired yet.'}\n`,
      ).join('\n');
      const patch = `*** Begin Patch\n*** Add File: ${docPath}\n${`# Handoff\n\n${body}`
        .split('\n')
        .map((line) => `+${line}`)
        .join('\n')}\n*** End Patch\n`;
      return responsesReply()
        .applyPatch(patch)
        .usage({ input_tokens: tokens(73), cached_tokens: tokens(72), output_tokens: 400 });
    });
    fake.enqueue(
      // Under the threshold first (a session first seen above it would wait 10 more points), then across.
      responsesReply()
        .exec('ls')
        .usage({ input_tokens: tokens(30), output_tokens: 20 }),
      responsesReply()
        .text('The flag parser is in src/cli.ts.')
        .usage({ input_tokens: tokens(72), output_tokens: 50 }),
      // After the patch: the model's closing words, then Codex stops again (stop_hook_active).
      responsesReply()
        .text('The handoff document is written.')
        .usage({ input_tokens: tokens(74), cached_tokens: tokens(73), output_tokens: 20 }),
    );
    // Codex run as a person runs it: `codex exec` says so in its rollout (originator codex_exec) and
    // keeps its answer (below); under the interactive client's originator it is the
    // session at the terminal whose Stop hook takes the handoff.
    const result = await codexExec(request, atTheTerminal(run(repo)));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('--dangerously-bypass-hook-trust');
    expect(result.stderr).toMatch(/hook: Stop Blocked/);
    expect(askedWith).toContain('--- handoff skill ---');
    expect(askedWith).toContain('Read the handoff document');

    const committed = await waitFor(async () => (await repo.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 60_000,
      message: 'the committed handoff',
    });
    expect(committed).toMatchObject({ agent: 'codex', executor: 'self' });
    const doc = await fs.readFile(path.join(repo.root, committed.path), 'utf8');
    expect(doc).toContain('Written by Codex itself.');
    expect(doc).toContain(`> ${request}`);
    expect((await repo.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(committed.path);
    expect(events.find((event) => event.name === 'handoff.written')?.payload).toMatchObject({ agent: 'codex', executor: 'self' });
    await waitFor(async () => (await notifications.received()).some((call) => call.body.includes(committed.successorCommand!)), {
      timeoutMs: 30_000,
      message: 'a notification naming the successor command',
    });

    // The successor, fresh: the SessionStart hook names the newest document to the model.
    const prompt = /^codex "((?:[^"\\]|\\.)*)"$/.exec(committed.successorCommand!)![1]!.replace(/\\(["$`\\])/g, '$1');
    fake.enqueue(responsesReply().text('Reading it.').usage({ input_tokens: 12_000, output_tokens: 10 }));
    expect((await codexExec(prompt, run(repo))).code).toBe(0);
    const successor = fake.requests.at(-1)!;
    expect(JSON.stringify(successor.input)).toContain(`the newest handoff document of this repo is ${committed.path}`);
    expect(JSON.stringify(successor.input)).not.toContain(request);
  });

  it('a `codex exec` run that crosses with the trusted hooks keeps its answer: stdout is the model’s final reply, the Stop hook does not block, and the daemon has written the document itself (offline) before codex exits, then commits it', async () => {
    const repo = await setUp();
    expect((await repo.daemon(['install-hooks', 'codex', '--trust'], { timeoutMs: 60_000 })).code).toBe(0);
    await startDaemon(repo);
    const before = fake.requests.length;
    fake.enqueue(
      responsesReply()
        .exec('ls')
        .usage({ input_tokens: tokens(30), output_tokens: 20 }),
      responsesReply()
        .text('The --verbose flag is wired; 2 tests added.')
        .usage({ input_tokens: tokens(72), output_tokens: 50 }),
    );
    const result = await codexExec('add a --verbose flag to the CLI', run(repo));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('The --verbose flag is wired; 2 tests added.');
    expect(result.stderr).not.toMatch(/hook: Stop Blocked/);
    expect(fake.requests.slice(before).some(handoffAsked)).toBe(false);
    // The Stop hook waited for the daemon's document: it is there when the script goes on.
    const [doc] = await handoffDocs(repo.root);
    expect(doc).toBeDefined();
    expect(await fs.readFile(path.join(repo.root, doc!), 'utf8')).toContain('add a --verbose flag to the CLI');
    const committed = await waitFor(async () => (await repo.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 60_000,
      message: 'the committed handoff',
    });
    expect(committed).toMatchObject({ agent: 'codex', executor: 'offline', path: doc });
  });

  it('X3 Codex about to compact by itself with no document for the crossing: its PreCompact hook has the offline document written within the hook’s time limit, and the daemon commits it', async () => {
    // The default grace window: the daemon itself would not hand off a session this young.
    // Codex compacts at 150k tokens here (58% of its window), under handoffAt.
    const repo = await setUp({}, ['model_auto_compact_token_limit = 150000']);
    expect((await repo.daemon(['install-hooks', 'codex', '--trust'], { timeoutMs: 60_000 })).code).toBe(0);
    await startDaemon(repo);
    fake.handle((received) => {
      if (received.lastUserText.includes('CONTEXT CHECKPOINT COMPACTION'))
        return responsesReply().text('Summary: working on the flag.').usage({ input_tokens: 160_500, output_tokens: 40 });
      return undefined;
    });
    // Past the compaction limit configured for Codex (150k) after a tool call: Codex compacts mid-turn.
    fake.enqueue(
      responsesReply().exec('echo working').usage({ input_tokens: 160_000, output_tokens: 500 }),
      responsesReply().text('Carrying on after the summary.').usage({ input_tokens: 9_000, output_tokens: 30 }),
    );
    const result = await codexExec('keep working on the flag', run(repo));
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/hook: PreCompact Completed[\s\S]*context compacted/);
    const written = await waitFor(() => events.find((event) => event.name === 'handoff.written'), {
      timeoutMs: 30_000,
      message: 'the handoff.written event',
    });
    expect(written.payload).toMatchObject({ agent: 'codex', executor: 'offline' });
    const committed = await waitFor(async () => (await repo.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 60_000,
      message: 'the committed handoff',
    });
    const doc = await fs.readFile(path.join(repo.root, committed.path), 'utf8');
    expect(doc).toContain('keep working on the flag');
    expect(doc).toMatch(/`echo working` — exit 0/);
    // Written while Codex waited on the hook, before it compacted: nothing of what came after is in it.
    expect(doc).not.toContain('Carrying on after the summary');
    expect(fake.requests.some(handoffAsked)).toBe(false);
  });

  it('X3 hooks installed but not trusted: Codex skips them without a word, so the daemon does not wait for the agent — it writes the document itself at the crossing', async () => {
    const repo = await setUp();
    expect((await repo.daemon(['install-hooks', 'codex'])).code).toBe(0);
    await startDaemon(repo);
    fake.enqueue(
      responsesReply()
        .exec('ls')
        .usage({ input_tokens: tokens(30), output_tokens: 20 }),
      responsesReply()
        .text('Wired the flag.')
        .usage({ input_tokens: tokens(72), output_tokens: 20 }),
    );
    expect((await codexExec('wire the --verbose flag', run(repo))).code).toBe(0);
    const committed = await waitFor(async () => (await repo.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 60_000,
      message: 'the committed handoff (well before the 180 s self deadline)',
    });
    expect(committed).toMatchObject({ agent: 'codex', executor: 'offline' });
    expect(committed.downgrades).toBeUndefined();
    expect(fake.requests.some(handoffAsked)).toBe(false);
    expect(await handoffDocs(repo.root)).toHaveLength(1);
  });

  it('X3 a Codex hook never breaks the agent: no daemon, garbage or empty input → exit 0 and nothing printed', async () => {
    const repo = await setUp();
    for (const [event, input] of [
      ['Stop', '{"transcript_path":"/nowhere/rollout-x.jsonl","cwd":"/","stop_hook_active":false}'],
      ['PreCompact', 'not json at all'],
      ['SessionStart', ''],
      ['Bogus', '{}'],
    ] as const) {
      const result = await runHook(repo, event, input);
      expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    }
  });
});

// The lean entry the stable shim runs for `hook` (dist/cli/ai-zen-hook.cjs): the path every agent turn takes.
const HOOK_ENTRY = path.join(path.dirname(DAEMON_BIN), 'ai-zen-hook.cjs');

function runHook(repo: DaemonRepo, event: string, input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [HOOK_ENTRY, 'codex', event], { cwd: repo.root, env: { ...process.env, ...repo.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}
