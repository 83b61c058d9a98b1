// `ai-zen-daemon statusline`, Claude Code's statusLine — spawned as Claude spawns it
// (the lean entry the shim runs, and the full CLI), with the JSON the real client 2.1.332 sends
// (statusline-claude-input.json, captured from it), against no daemon, a real daemon, bad input;
// install-hooks claude / uninstall-hooks claude on real settings files; and the real client in tmux.
import { execFile, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HandoffReply } from '../../src/daemon/side-channels/status-schema.js';
import { DAEMON_BIN, makeDaemonRepo, sessionId, usageLine, type DaemonRepo } from '../daemon/daemon-harness.js';
import { makeClaudeHome } from '../support/claude-client.js';
import { startInteractiveClaude } from '../support/claude-interactive.js';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { runCli } from '../support/run-cli-in-process.js';
import { runCli as runScript } from '../support/run-cli.js';
import { waitFor } from '../support/wait-for.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const LEAN = path.resolve(here, '..', '..', 'dist', 'cli', 'ai-zen-statusline.js');
const CAPTURED = JSON.parse(await fs.readFile(path.join(here, 'statusline-claude-input.json'), 'utf8')) as Record<string, any>;

/** Claude's input for a session in `folder`: as captured, with its paths and id replaced. */
function claudeInput(folder: string, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    ...CAPTURED,
    session_id: 'b1b8a42a-0c27-414e-82ce-bf569a0fdf24',
    transcript_path: path.join(folder, 'nowhere', 'b1b8a42a-0c27-414e-82ce-bf569a0fdf24.jsonl'),
    cwd: folder,
    workspace: { current_dir: folder, project_dir: folder, added_dirs: [] },
    ...overrides,
  });
}

let daemon: DaemonRepo | null = null;
afterEach(async () => {
  await daemon?.cleanup();
  daemon = null;
});

async function repo(config?: object): Promise<DaemonRepo> {
  daemon = await makeDaemonRepo(config ? { config, trusted: true } : {});
  return daemon;
}

// The lean entry is what Claude Code spawns: its bundle is only proven by running it as a process.
const lean = (repo: DaemonRepo, input: string, args: string[] = []) =>
  runScript(args, { cwd: repo.root, env: repo.env, input, bin: LEAN, timeoutMs: 30_000 });

describe('statusline', { timeout: 120_000 }, () => {
  it('statusline with no daemon prints the context % of Claude’s own reading and “ai-zen off”, exit 0 (lean entry and full CLI alike)', async () => {
    const r = await repo();
    const input = claudeInput(r.root);
    const fast = await lean(r, input);
    expect(fast).toMatchObject({ code: 0, stdout: 'ctx 60% · ai-zen off\n', stderr: '' });
    const viaCli = await runCli(['statusline'], { cwd: r.root, env: r.env, input, bin: DAEMON_BIN, timeoutMs: 30_000 });
    expect(viaCli).toMatchObject({ code: 0, stdout: 'ctx 60% · ai-zen off\n', stderr: '' });
    // From a subfolder of the repo, and before the first request (no context_window yet: the percent is not known).
    const sub = path.join(r.root, 'src');
    await fs.mkdir(sub, { recursive: true });
    const early = await lean(r, claudeInput(sub, { context_window: undefined }));
    expect(early.stdout).toBe('ctx – · ai-zen off\n');
    // An older client's input: the tokens and the window, no percent.
    const computed = await lean(
      r,
      claudeInput(r.root, {
        context_window: { context_window_size: 200_000, current_usage: { input_tokens: 100, cache_read_input_tokens: 130_000 } },
      }),
    );
    expect(computed.stdout).toBe('ctx 65% · ai-zen off\n');
  });

  it('bad stdin never fails the statusline: a short fallback line, exit 0, no stack trace', async () => {
    const r = await repo();
    for (const input of ['', 'not json', '[1,2]', 'null', '{"session_id": 3', 'x'.repeat(400_000)]) {
      for (const bin of [LEAN, DAEMON_BIN]) {
        const result = await (bin === LEAN ? runScript : runCli)(bin === LEAN ? [] : ['statusline'], {
          cwd: r.root,
          env: r.env,
          input,
          bin,
          timeoutMs: 30_000,
        });
        expect(result, `${bin} ${input.slice(0, 20)}`).toMatchObject({ code: 0, stdout: 'ai-zen: no reading\n', stderr: '' });
      }
    }
    // A wrong option is said on stderr for a person trying it; the line still prints.
    const wrong = await lean(r, claudeInput(r.root), ['--nope']);
    expect(wrong.code).toBe(0);
    expect(wrong.stdout).toBe('ctx 60% · ai-zen off\n');
    expect(wrong.stderr).toContain('--nope');
  });

  it('a caller that never closes stdin gets the line from what it sent by then, within the input deadline; from a file, as well', async () => {
    const r = await repo();
    const child = spawn(process.execPath, [LEAN], { cwd: r.root, env: r.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stdin.write(claudeInput(r.root));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    child.stdin.destroy();
    // Its reading, so the input deadline (1 s) ended the read, not the run's own (2 s: no reading then).
    expect({ code, stdout }).toEqual({ code: 0, stdout: 'ctx 60% · ai-zen off\n' });
    const file = path.join(r.root, 'input.json');
    await fs.writeFile(file, claudeInput(r.root));
    const handle = await fs.open(file, 'r');
    try {
      const fromFile = spawn(process.execPath, [LEAN], { cwd: r.root, env: r.env, stdio: [handle.fd, 'pipe', 'pipe'] });
      let line = '';
      fromFile.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        line += chunk;
      });
      expect(await new Promise((resolve) => fromFile.once('exit', resolve))).toBe(0);
      expect(line).toBe('ctx 60% · ai-zen off\n');
    } finally {
      await handle.close();
    }
  });

  it('with a daemon: where it hands off and where Claude compacts, from the reading it is handed (model, window), and the last document of this session or of the repo', async () => {
    // Claude compacts this model at 80% (config), ai-zen hands off at 90% but at 100k tokens at most.
    const r = await repo({
      agents: { 'claude-code': { handoffAt: 90, handoffAtTokens: 100_000, models: { 'claude-sonnet-4-6': { compactsAt: 80 } } } },
    });
    await r.start();
    // The 200k window of the reading: 100k tokens is 50%.
    expect((await lean(r, claudeInput(r.root))).stdout).toBe('ctx 60% · hands off 50% · compacts ~80%\n');
    // A 1M window (the reading says so): 100k tokens is 10%; another model: the table's 73%.
    const big = claudeInput(r.root, {
      model: { id: 'claude-opus-5-5', display_name: 'Opus' },
      context_window: { ...CAPTURED.context_window, context_window_size: 1_000_000, used_percentage: 12 },
    });
    expect((await lean(r, big)).stdout).toBe('ctx 12% · hands off 10% · compacts ~73%\n');

    // A document of an ai-zen session: the repo's last one for this Claude session, that session's own for it.
    const id = sessionId(23);
    await r.writeSession(id, { maxContextTokens: 100_000 });
    await r.appendLines(id, usageLine(10_000));
    await waitFor(async () => (await r.status()).sessions.some((session) => session.id === id), {
      message: 'the daemon to see the session',
    });
    const handoff = await r.daemon(['handoff', id, '--json']);
    expect(handoff.stderr).toBe('');
    HandoffReply.parse(JSON.parse(handoff.stdout));
    const handoffs = JSON.parse((await r.daemon(['handoffs', '--json'])).stdout) as { handoffs: { at: string }[] };
    const at = new Date(handoffs.handoffs.at(-1)!.at);
    const clock = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
    expect((await lean(r, claudeInput(r.root))).stdout).toBe(`ctx 60% · hands off 50% · compacts ~80% · repo doc ${clock}\n`);
    expect((await lean(r, claudeInput(r.root, { session_id: id }))).stdout).toBe(
      `ctx 60% · hands off 50% · compacts ~80% · last doc ${clock}\n`,
    );
  });

  it('--chain runs the user’s statusline command with the same input and appends ai-zen’s line', async () => {
    const r = await repo();
    const input = claudeInput(r.root);
    const chained = await lean(r, input, ['--chain', `printf 'theirs %s\\n' "$(wc -c | tr -d ' ')"`]);
    expect(chained).toMatchObject({ code: 0, stdout: `theirs ${Buffer.byteLength(input)} · ctx 60% · ai-zen off\n` });
    const viaCli = await runCli(['statusline', '--chain', 'echo mine'], { cwd: r.root, env: r.env, input, bin: DAEMON_BIN });
    expect(viaCli.stdout).toBe('mine · ctx 60% · ai-zen off\n');
    // Theirs failing prints ours alone.
    expect((await lean(r, input, ['--chain', 'exit 3'])).stdout).toBe('ctx 60% · ai-zen off\n');
  });
});

describe('install-hooks claude installs the statusline, never over the user’s', { timeout: 120_000 }, () => {
  const local = (r: DaemonRepo) => path.join(r.root, '.claude', 'settings.local.json');
  const read = async (file: string) => JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, any>;
  const shim = (r: DaemonRepo) => path.join(r.env.AI_ZEN_HOME!, 'bin', 'ai-zen-daemon');
  /** Runs a statusLine command as Claude does: through sh, the JSON on stdin. */
  async function runStatusLine(r: DaemonRepo, command: string): Promise<string> {
    const child = execFile('/bin/sh', ['-c', command], { cwd: r.root, env: { ...process.env, ...r.env } });
    child.stdin!.end(claudeInput(r.root));
    let out = '';
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
    });
    await new Promise((resolve) => child.on('close', resolve));
    return out;
  }

  it('install-hooks claude adds statusLine through the stable shim (it runs the lean entry), again is a no-op, uninstall-hooks removes only it', async () => {
    const r = await repo();
    await fs.mkdir(path.dirname(local(r)), { recursive: true });
    await fs.writeFile(local(r), JSON.stringify({ model: 'sonnet' }));
    const installed = await r.daemon(['install-hooks', 'claude']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('statusline installed in .claude/settings.local.json');
    const settings = await read(local(r));
    expect(settings.statusLine).toEqual({ type: 'command', command: `${shim(r)} statusline`, padding: 0 });
    expect(settings.model).toBe('sonnet');
    expect(await runStatusLine(r, settings.statusLine.command)).toBe('ctx 60% · ai-zen off\n');
    // The shim takes the lean entry for statusline (not the whole CLI): its CommonJS file, else its module.
    expect(await fs.readFile(shim(r), 'utf8')).toContain('/ai-zen-statusline" ;;');
    expect(await fs.readFile(shim(r), 'utf8')).toContain('set -- "$lean.cjs" "$@"');

    expect((await r.daemon(['install-hooks', 'claude'])).stdout).toContain('statusline already installed');
    const removed = await r.daemon(['uninstall-hooks', 'claude']);
    expect(removed.stdout).toContain("ai-zen's statusline removed from .claude/settings.local.json");
    expect(await read(local(r))).toEqual({ model: 'sonnet' });
  });

  it('a statusline the user has (in settings.local.json, the project’s settings.json or their own) is left, with the --chain command to show both; that command works; uninstall leaves it', async () => {
    const r = await repo();
    const claudeDir = path.join(r.repo.home, 'claude-config');
    const env = { ...r.env, CLAUDE_CONFIG_DIR: claudeDir };
    const daemonIn = (args: string[]) => runCli(args, { cwd: r.root, env, bin: DAEMON_BIN, timeoutMs: 60_000 });
    const theirs = { type: 'command', command: "echo 'my line'" };
    const places = [local(r), path.join(r.root, '.claude', 'settings.json'), path.join(claudeDir, 'settings.json')];
    for (const place of places) {
      for (const file of places) await fs.rm(file, { force: true });
      await fs.mkdir(path.dirname(place), { recursive: true });
      await fs.writeFile(place, JSON.stringify({ statusLine: theirs }));
      const installed = await daemonIn(['install-hooks', 'claude']);
      expect(installed.code, installed.stderr).toBe(0);
      expect((await read(place)).statusLine, place).toEqual(theirs);
      if (place !== local(r)) expect((await read(local(r))).statusLine, place).toBeUndefined();
      expect(installed.stdout).toContain("is left as it is; to show ai-zen's line after it, set its command to:");
      const chain = `${shim(r)} statusline --chain 'echo '\\''my line'\\'''`;
      expect(installed.stdout).toContain(`  ${chain}\n`);
      expect(await runStatusLine(r, chain)).toBe('my line · ctx 60% · ai-zen off\n');

      // Chained as told: install says so, uninstall leaves the chain (it is the user's command now).
      await fs.writeFile(place, JSON.stringify({ statusLine: { type: 'command', command: chain } }));
      expect((await daemonIn(['install-hooks', 'claude'])).stdout).toContain("already shows ai-zen's line (--chain)");
      await daemonIn(['uninstall-hooks', 'claude']);
      expect((await read(place)).statusLine.command).toBe(chain);
    }
  });
});

describe('the real Claude Code shows the line in its status bar', { timeout: 180_000 }, () => {
  let fake: FakeAnthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('Claude Code 2.1.x in tmux, with install-hooks claude and a daemon running, shows ctx · hands off · compacts in its status bar', async () => {
    const base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-statusline-'));
    const claude = await makeClaudeHome(base);
    daemon = await makeDaemonRepo({ env: claude.env });
    await daemon.start();
    const installed = await daemon.daemon(['install-hooks', 'claude']);
    expect(installed.stdout).toContain('statusline installed');
    fake.enqueue(anthropicReply().text('The parser is fixed.').usage({ input_tokens: 124_000, output_tokens: 10 }));
    await using terminal = await startInteractiveClaude('Fix the parser', {
      cwd: daemon.root,
      home: claude,
      baseURL: fake.baseURL,
      args: ['--model', 'claude-sonnet-4-6'],
      env: daemon.env,
    });
    await terminal.waitForScreen(/The parser is fixed\./, { timeoutMs: 90_000 });
    // 124k of the 200k window; the default handoffAt 70, Claude's table point 73.
    await terminal.waitForScreen(/ctx 62% · hands off 70% · compacts ~73%/, { timeoutMs: 60_000 });
  });
});
