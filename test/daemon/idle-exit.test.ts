// An enabled repo's daemon exits by itself once its repo has had no live session for
// `daemon.idleExitMinutes` (here 0.02 min), and the next agent session start brings it back — through
// the real SessionStart hook the agent runs — with nothing lost: the Claude Code handoff written before
// the exit is listed again, its session still handed off. Not an enabled repo: it stays.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { setEnabled } from '../../src/cli/shared/enabled-repos.js';
import { checkSockets } from '../../src/cli/daemon/doctor-checks.js';
import { claudeSlug } from '../../src/daemon/sources/claude-code/claude-paths.js';
import { processAlive } from '../support/process-alive.js';
import { claudeAssistant, claudeLines, claudeUser } from '../support/claude-transcript-lines.js';
import { waitFor } from '../support/wait-for.js';
import { DAEMON_BIN, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const SESSION = '41111111-2222-4333-8444-555555555555';
const HOOK_BIN = path.join(path.dirname(DAEMON_BIN), 'ai-zen-hook.cjs');
const IDLE_MINUTES = 0.02;

let daemon: DaemonRepo | null = null;
let base: string | null = null;
afterEach(async () => {
  if (daemon && (await daemon.running())) await daemon.daemon(['stop']);
  await daemon?.cleanup();
  if (base) await fs.rm(base, { recursive: true, force: true });
  daemon = base = null;
});

async function setup(): Promise<{ daemon: DaemonRepo; transcript: string; registry: string }> {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-idle-'));
  const claudeHome = path.join(base, 'claude');
  daemon = await makeDaemonRepo({
    env: { CLAUDE_CONFIG_DIR: claudeHome },
    config: { daemon: { idleExitMinutes: IDLE_MINUTES }, agents: { 'claude-code': { graceSeconds: 0 } } },
  });
  const folder = path.join(claudeHome, 'projects', claudeSlug(daemon.root));
  await fs.mkdir(folder, { recursive: true });
  const transcript = path.join(folder, `${SESSION}.jsonl`);
  await fs.writeFile(
    transcript,
    claudeLines(daemon.root, SESSION, [
      claudeUser('Fix the parser'),
      claudeAssistant('msg_1', [{ type: 'text', text: 'Looking at it.' }], 20_000),
    ]),
  );
  // Claude Code's own record of a running session: this test process stands for the agent.
  const registry = path.join(claudeHome, 'sessions', `${process.pid}.json`);
  await fs.mkdir(path.dirname(registry), { recursive: true });
  return { daemon, transcript, registry };
}

const live = (registry: string) => fs.writeFile(registry, JSON.stringify({ pid: process.pid, sessionId: SESSION, cwd: daemon!.root }));

/** The SessionStart hook as Claude Code runs it (the lean entry the shim runs), in the repo. */
function sessionStartHook(repo: DaemonRepo, transcript: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOOK_BIN, 'claude', 'SessionStart'], {
      cwd: repo.root,
      env: repo.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
    child.stdin.end(
      JSON.stringify({
        session_id: SESSION,
        transcript_path: transcript,
        cwd: repo.root,
        hook_event_name: 'SessionStart',
        source: 'resume',
      }),
    );
  });
}

const log = (repo: DaemonRepo) => fs.readFile(path.join(repo.root, '.ai-zen/logs/daemon.log'), 'utf8').catch(() => '');

describe('an enabled repo’s daemon exits when idle and comes back with the next session', () => {
  test('after its handoff is committed and the session ends it exits, saying why; status and doctor call it idle, not dead; the next SessionStart brings it back with the same handoffs and session state', async () => {
    const { daemon, transcript, registry } = await setup();
    await setEnabled(daemon.root, true, daemon.env);
    await live(registry);
    const pid = await daemon.start();
    await waitFor(
      async () => (await daemon.status()).sessions.some((session) => session.id === SESSION && session.promptTokens === 20_000),
      {
        timeoutMs: 30_000,
        message: 'the session read',
      },
    );
    await fs.appendFile(
      transcript,
      claudeLines(daemon.root, SESSION, [claudeAssistant('msg_2', [{ type: 'text', text: 'Fixed; the tests pass.' }], 142_000)]),
    );
    await waitFor(async () => (await daemon.status()).handoffs.some((record) => record.state === 'committed'), {
      timeoutMs: 60_000,
      message: 'the handoff written and committed',
    });
    const before = await daemon.daemon(['status', '--all', '--json']);
    const listedBefore = await daemon.daemon(['handoffs']);
    // A live session keeps it up past its idle time (the check says so when its reason changes).
    await waitFor(async () => (await log(daemon)).includes('"reason":"a live session","msg":"idle check"'), {
      timeoutMs: 30_000,
      message: 'the idle check to see the live session',
    });
    expect(processAlive(pid)).toBe(true);

    await fs.rm(registry);
    // Its lock freed, as `stop` waits for: the process is gone, not only its main thread.
    await waitFor(async () => !processAlive(pid) && !(await daemon.running()), { timeoutMs: 30_000, message: 'the daemon to exit idle' });
    expect(await log(daemon)).toMatch(
      /"reason":"idle: no live session and nothing pending for 0\.02 min[^"]*","msg":"daemon shutting down"/,
    );
    const status = await daemon.daemon(['status']);
    expect(status.code).not.toBe(0);
    expect(status.stderr).toContain('exited idle at');
    expect(status.stderr).toContain('the next agent session here starts it again');
    expect(await checkSockets(daemon.env)).toEqual([expect.objectContaining({ check: 'sockets', status: 'ok' })]);
    expect((await daemon.daemon(['ls'])).stdout).toBe('no ai-zen daemon is running\n');

    await live(registry);
    const hook = await sessionStartHook(daemon, transcript);
    expect(hook.code).toBe(0);
    // Launched without waiting for it: the session's start is not told the repo is unprotected.
    expect(hook.stdout).not.toContain('NOT protected');
    await waitFor(() => daemon.running(), { timeoutMs: 30_000, message: 'the daemon brought back by the session start' });
    const backStatus = await waitFor(
      async () => {
        const status = await daemon.status().catch(() => null);
        return status?.ready && status.handoffs.length > 0 ? status : null;
      },
      { timeoutMs: 30_000, message: 'the daemon back and ready' },
    );
    expect(backStatus.pid).not.toBe(pid);
    const after = await daemon.daemon(['status', '--all', '--json']);
    const comparable = (text: string) => {
      const value = JSON.parse(text) as {
        handoffs: { attempts: number }[];
        sessions: { id: string; action: string | null; state: string }[];
      };
      // `attempts` counts this daemon's own commit tries: a document found committed at start took none.
      return {
        handoffs: value.handoffs.map(({ attempts: _, ...record }) => record),
        sessions: value.sessions.map(({ id, action, state }) => ({ id, action, state })),
      };
    };
    expect(comparable(after.stdout)).toEqual(comparable(before.stdout));
    expect((await daemon.daemon(['handoffs'])).stdout).toBe(listedBefore.stdout);
  }, 180_000);

  test('a repo that is not enabled keeps its daemon: no session would start it again', async () => {
    const { daemon } = await setup();
    const pid = await daemon.start();
    await waitFor(async () => (await log(daemon)).includes('"reason":"the repo is not enabled: no session would start the daemon again"'), {
      timeoutMs: 30_000,
      message: 'the idle check to find the repo not enabled',
    });
    expect((await daemon.status()).ready).toBe(true);
    expect(processAlive(pid)).toBe(true);
    expect(await log(daemon)).not.toContain('idle: no live session');
  }, 60_000);
});
