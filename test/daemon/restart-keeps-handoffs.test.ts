// A restart changes nothing a user sees of another agent's handoffs: a Claude Code transcript (written
// where Claude Code keeps it, no real client) crosses its threshold and the real daemon writes its
// document; then the daemon is stopped and started again — or killed with -9 between writing the
// document and sealing it — and `handoffs`, the session's action, its successor's `continues` and the
// commit come back as they were, with no second document.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { requestDaemon } from '../../src/cli/shared/daemon-client.js';
import { SessionsReply } from '../../src/daemon/side-channels/status-schema.js';
import { claudeSlug } from '../../src/daemon/sources/claude-code/claude-paths.js';
import { processAlive } from '../support/process-alive.js';
import { claudeAssistant, claudeLines, claudeUser } from '../support/claude-transcript-lines.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const SESSION = '21111111-2222-4333-8444-555555555555';
const SUCCESSOR = '31111111-2222-4333-8444-555555555555';
const REQUEST = 'Fix the off-by-one in src/parse.ts and keep the tests green';

let daemon: DaemonRepo | null = null;
let base: string | null = null;
afterEach(async () => {
  await daemon?.cleanup();
  if (base) await fs.rm(base, { recursive: true, force: true });
  daemon = base = null;
});

interface Setup {
  readonly daemon: DaemonRepo;
  readonly folder: string;
  readonly transcript: string;
}

async function setup(env: Record<string, string> = {}): Promise<Setup> {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-restart-'));
  const claudeHome = path.join(base, 'claude');
  daemon = await makeDaemonRepo({
    env: { CLAUDE_CONFIG_DIR: claudeHome, ...env },
    config: { agents: { 'claude-code': { graceSeconds: 0 } } },
  });
  const folder = path.join(claudeHome, 'projects', claudeSlug(daemon.root));
  await fs.mkdir(folder, { recursive: true });
  const transcript = path.join(folder, `${SESSION}.jsonl`);
  // Under the threshold first: a session first seen above it would wait for 10 more points.
  await fs.writeFile(
    transcript,
    claudeLines(daemon.root, SESSION, [
      claudeUser(REQUEST),
      claudeAssistant('msg_1', [{ type: 'text', text: 'Looking at src/parse.ts.' }], 20_000),
    ]),
  );
  return { daemon, folder, transcript };
}

/** Every session, those handed off too (`status` folds them out). */
async function sessions(daemon: DaemonRepo) {
  return (await requestDaemon(daemon.root, daemon.env, 'sessions', undefined, SessionsReply)).sessions;
}

async function sessionRead(daemon: DaemonRepo, id: string, promptTokens: number): Promise<void> {
  await waitFor(async () => (await sessions(daemon)).some((session) => session.id === id && session.promptTokens === promptTokens), {
    timeoutMs: 30_000,
    message: `session ${id} read at ${promptTokens} tokens`,
  });
}

/** The reply that crosses 70% of Claude's 200k window. */
async function cross(root: string, transcript: string, tokens = 142_000): Promise<void> {
  await fs.appendFile(
    transcript,
    claudeLines(root, SESSION, [
      claudeAssistant(`msg_${tokens}`, [{ type: 'text', text: 'The off-by-one is fixed; the tests pass.' }], tokens),
    ]),
  );
}

const git = (root: string, ...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });

async function listed(daemon: DaemonRepo) {
  const { handoffs } = await daemon.status();
  return handoffs;
}

async function log(daemon: DaemonRepo): Promise<string> {
  return fs.readFile(path.join(daemon.root, '.ai-zen/logs/daemon.log'), 'utf8').catch(() => '');
}

describe("a restart keeps every other agent's handoff", () => {
  test('a pre-commit hook that hangs does not outlive the stop: the hook and what it started are killed, and the document is committed after the next start', async () => {
    const { daemon, transcript } = await setup();
    const hook = path.join(daemon.root, '.git', 'hooks', 'pre-commit');
    const marks = path.join(path.dirname(daemon.root), 'hook-pids');
    await fs.mkdir(path.dirname(hook), { recursive: true });
    // A linter that never ends, with a child of its own.
    await fs.writeFile(hook, `#!/bin/sh\nsleep 1000 &\necho "$! $$" > ${marks}.tmp && mv ${marks}.tmp ${marks}\nwait\n`, { mode: 0o755 });
    await daemon.start();
    await sessionRead(daemon, SESSION, 20_000);
    await cross(daemon.root, transcript);
    const pids = await waitFor(
      async () => {
        const found = (await fs.readFile(marks, 'utf8').catch(() => '')).trim().split(' ').map(Number).filter(Boolean);
        return found.length === 2 ? found : null;
      },
      { timeoutMs: 60_000, message: 'the pre-commit hook running' },
    );
    expect((await daemon.daemon(['stop'])).code).toBe(0);
    await waitFor(() => pids.every((pid) => !processAlive(pid)), {
      timeoutMs: 30_000,
      message: 'the hook and its child gone with the daemon',
    });
    expect(await log(daemon)).not.toContain('shutdown did not finish in time');

    await fs.writeFile(hook, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    await daemon.start();
    await waitFor(async () => (await listed(daemon)).some((record) => record.sessionId === SESSION && record.state === 'committed'), {
      timeoutMs: 60_000,
      message: 'the document committed after the restart',
    });
    expect(git(daemon.root, 'log', '--format=%s', '-1')).toContain('(offline)');
  }, 180_000);

  test('stop and start with a commit deferred by a failing pre-commit hook: handoffs lists the Claude Code document as before, it is committed once the hook passes, the session stays handed off (grown further, it gets no second document), and its successor still continues it', async () => {
    const { daemon, folder, transcript } = await setup();
    const hook = path.join(daemon.root, '.git', 'hooks', 'pre-commit');
    await fs.mkdir(path.dirname(hook), { recursive: true });
    await fs.writeFile(hook, '#!/bin/sh\necho "lint failed" >&2\nexit 1\n', { mode: 0o755 });
    await daemon.start();
    await sessionRead(daemon, SESSION, 20_000);
    await cross(daemon.root, transcript);
    const deferred = await waitFor(async () => (await listed(daemon)).find((record) => record.state === 'deferred'), {
      timeoutMs: 60_000,
      message: 'the document written and its commit deferred',
    });
    expect(deferred).toMatchObject({ agent: 'claude-code', sessionId: SESSION, executor: 'offline' });
    expect(deferred.reason).toContain('pre-commit');
    const before = (await sessions(daemon)).find((session) => session.id === SESSION)!;
    expect(before.action).toBe(`handoff written (offline): ${deferred.path}`);

    // The successor the person started from the document, as the announced command words it.
    await fs.writeFile(
      path.join(folder, `${SUCCESSOR}.jsonl`),
      claudeLines(daemon.root, SUCCESSOR, [
        claudeUser(`Read the handoff document ${deferred.path} (the previous session's record) and continue the work from its breakpoint.`),
        claudeAssistant('msg_s1', [{ type: 'text', text: 'Read it; continuing.' }], 9_000),
      ]),
    );
    await sessionRead(daemon, SUCCESSOR, 9_000);

    expect((await daemon.daemon(['stop'])).code).toBe(0);
    await fs.writeFile(hook, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    await daemon.start();

    const committed = await waitFor(
      async () => (await listed(daemon)).find((record) => record.path === deferred.path && record.state === 'committed'),
      {
        timeoutMs: 60_000,
        message: 'the deferred document listed again and committed after the restart',
      },
    ).catch(async (error) => {
      console.log(await log(daemon));
      throw error;
    });
    expect(committed).toMatchObject({ agent: 'claude-code', sessionId: SESSION, executor: 'offline' });
    expect(committed.successorCommand).toContain(`Read the handoff document ${deferred.path}`);
    expect(git(daemon.root, 'log', '--format=%s', '-1')).toContain('(offline)');
    expect(git(daemon.root, 'status', '--porcelain', '--', '.ai-zen/handoffs')).toBe('');
    const listing = await daemon.daemon(['handoffs']);
    expect(listing.stdout).toContain(deferred.path);

    // The session was resumed and grew further: still handed off, no second document.
    await cross(daemon.root, transcript, 150_000);
    await sessionRead(daemon, SESSION, 150_000);
    const all = JSON.parse((await daemon.daemon(['status', '--all', '--json'])).stdout) as {
      sessions: { id: string; action: string | null; state: string; previous?: { path: string; sessionId: string | null } }[];
    };
    const after = all.sessions.find((session) => session.id === SESSION);
    expect(after).toMatchObject({ action: `handoff written (offline): ${deferred.path}`, state: 'handed-off' });
    expect(all.sessions.find((session) => session.id === SUCCESSOR)?.previous).toEqual({ path: deferred.path, sessionId: SESSION });
    expect(await handoffDocs(daemon.root)).toEqual([deferred.path]);
    expect((await listed(daemon)).map((record) => record.path)).toEqual([deferred.path]);
  }, 180_000);

  test('kill -9 of the daemon between writing a Claude Code document and sealing it: the next start adopts the document left on disk — sealed, committed, listed — and writes no second one', async () => {
    const pauseFile = path.join(os.tmpdir(), `ai-zen-restart-paused-${process.pid}-${Date.now()}`);
    const { daemon, transcript } = await setup();
    daemon.env.AI_ZEN_TEST_PAUSE_AT = 'after-document';
    daemon.env.AI_ZEN_TEST_PAUSE_FILE = pauseFile;
    const pid = await daemon.start();
    await sessionRead(daemon, SESSION, 20_000);
    await cross(daemon.root, transcript);
    await waitFor(async () => (await fs.readFile(pauseFile, 'utf8').catch(() => '')) === 'after-document', {
      timeoutMs: 60_000,
      message: 'the handoff to reach the document, not yet sealed',
    });
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !processAlive(pid), { timeoutMs: 30_000, message: 'the killed daemon gone' });
    await waitFor(async () => !(await daemon.running()), { timeoutMs: 30_000, message: 'the killed daemon’s lock free' });
    const [left] = await handoffDocs(daemon.root);
    expect(left).toBeDefined();
    expect(git(daemon.root, 'status', '--porcelain', '--', '.ai-zen/handoffs')).toContain('??');

    delete daemon.env.AI_ZEN_TEST_PAUSE_AT;
    delete daemon.env.AI_ZEN_TEST_PAUSE_FILE;
    await fs.rm(pauseFile, { force: true });
    await daemon.start();
    const adopted = await waitFor(
      async () => (await listed(daemon)).find((record) => record.path === left && record.state === 'committed'),
      {
        timeoutMs: 60_000,
        message: 'the document left by the killed daemon adopted and committed',
      },
    ).catch(async (error) => {
      console.log(await log(daemon));
      throw error;
    });
    expect(adopted).toMatchObject({ agent: 'claude-code', sessionId: SESSION });
    expect(git(daemon.root, 'status', '--porcelain', '--', '.ai-zen/handoffs')).toBe('');
    expect(await handoffDocs(daemon.root)).toEqual([left]);
    const session = (await sessions(daemon)).find((entry) => entry.id === SESSION);
    expect(session?.action).toBe(`handoff written (offline): ${left}`);
  }, 180_000);

  // A full disk, made without root: the daemon's file size limit (RLIMIT_FSIZE, `prlimit --fsize`) is
  // set below a document's size, so its writes fail with EFBIG as they would with ENOSPC; raising the
  // limit again is the space coming back.
  test('a full disk while a Claude Code document is written: no 0-byte document is left, the handoff is tried again with the backoff, and once there is space the document is written and committed', async () => {
    const { daemon, transcript } = await setup();
    const pid = await daemon.start();
    await sessionRead(daemon, SESSION, 20_000);
    execFileSync('prlimit', ['--pid', String(pid), '--fsize=512:']);
    await cross(daemon.root, transcript);
    const failed = await waitFor(
      async () => (await sessions(daemon)).find((session) => session.id === SESSION && session.action?.startsWith('failed: ')),
      { timeoutMs: 60_000, message: 'the handoff to fail on the full disk' },
    ).catch(async (error) => {
      console.log(await log(daemon));
      throw error;
    });
    expect(failed.action).toMatch(/; tried again in 5 s$/);
    expect(await handoffDocs(daemon.root)).toEqual([]);

    execFileSync('prlimit', ['--pid', String(pid), '--fsize=unlimited:']);
    const committed = await waitFor(async () => (await listed(daemon)).find((record) => record.state === 'committed'), {
      timeoutMs: 60_000,
      message: 'the document written and committed once there is space',
    });
    expect(committed).toMatchObject({ agent: 'claude-code', sessionId: SESSION });
    expect(await handoffDocs(daemon.root)).toEqual([committed.path]);
    expect((await sessions(daemon)).find((session) => session.id === SESSION)?.action).toBe(`handoff written (offline): ${committed.path}`);
  }, 180_000);

  test('a full disk while a Claude Code document is written, then a restart: the new daemon owes the session its handoff and writes it, rather than holding it as a session first seen above its threshold', async () => {
    const { daemon, transcript } = await setup();
    const pid = await daemon.start();
    await sessionRead(daemon, SESSION, 20_000);
    execFileSync('prlimit', ['--pid', String(pid), '--fsize=512:']);
    await cross(daemon.root, transcript);
    await waitFor(
      async () => (await sessions(daemon)).some((session) => session.id === SESSION && session.action?.startsWith('failed: ')),
      {
        timeoutMs: 60_000,
        message: 'the handoff to fail on the full disk',
      },
    );
    expect((await daemon.daemon(['stop'])).code).toBe(0);
    await daemon.start();
    const committed = await waitFor(async () => (await listed(daemon)).find((record) => record.state === 'committed'), {
      timeoutMs: 60_000,
      message: 'the document written after the restart',
    }).catch(async (error) => {
      console.log(await log(daemon));
      throw error;
    });
    expect(committed).toMatchObject({ agent: 'claude-code', sessionId: SESSION });
    expect(await handoffDocs(daemon.root)).toEqual([committed.path]);
  }, 180_000);
});
