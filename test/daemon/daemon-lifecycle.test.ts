// D1, D5: one real daemon per repo — start, status, a second start refused, kill -9 then start
// again, stop, --foreground with SIGTERM — and a socket that shrugs off garbage.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { DAEMON_BIN, makeDaemonRepo, makeFifo, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';

/** Running (a zombie — exited, its reaper not done yet — counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S …"; Z = exited, not yet reaped by its (re)parent.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

describe('D1 one daemon per repo, started and stopped from the command line', { timeout: 60_000 }, () => {
  let daemon: DaemonRepo;
  beforeEach(async () => {
    daemon = await makeDaemonRepo();
  });
  afterEach(async () => {
    await daemon.cleanup();
  });

  it('D1 start from a subfolder returns once the daemon answers, printing pid, socket and log; status --json names them', async () => {
    const sub = path.join(daemon.root, 'src', 'deep');
    await fs.mkdir(sub, { recursive: true });
    const result = await daemon.daemon(['start'], { cwd: sub });
    expect(result.code).toBe(0);
    const pid = Number(/pid\s+(\d+)/.exec(result.stdout)?.[1]);
    expect(alive(pid)).toBe(true);
    expect(result.stdout).toContain(`started for ${daemon.root}`);
    expect(result.stdout).toContain(`socket  ${daemon.socketPath}`);
    expect(result.stdout).toContain(path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log'));

    const status = await daemon.status();
    expect(status).toMatchObject({ pid, repo: daemon.root, socket: daemon.socketPath, sessions: [], handoffs: [] });
    expect(status.git).toMatchObject({ known: true, value: { branch: 'main' } });
    expect(status.ports.known).toBe(true);
    // The log is really there and says the daemon runs (once it has read the sessions: `start` returns before).
    const log = path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log');
    await waitFor(async () => (await fs.readFile(log, 'utf8')).includes('"msg":"daemon running"'), {
      timeoutMs: 30_000,
      message: 'the log to say the daemon runs',
    });
  });

  it('D1 a second start says it is already running (with its pid), exits 3, and leaves the first alone', async () => {
    const pid = await daemon.start();
    const second = await daemon.daemon(['start']);
    expect(second.code).toBe(3);
    expect(second.stderr).toBe(`ai-zen-daemon: already running for ${daemon.root} (pid ${pid})\n`);
    expect(second.stdout).toBe('');
    expect(alive(pid)).toBe(true);
    expect((await daemon.status()).pid).toBe(pid);
  });

  it('D1 two starts at once: one daemon, the other start says it is already running', async () => {
    const results = await Promise.all([daemon.daemon(['start']), daemon.daemon(['start'])]);
    const codes = results.map((result) => result.code).sort();
    expect(codes).toEqual([0, 3]);
    const pid = (await daemon.status()).pid;
    const loser = results.find((result) => result.code === 3)!;
    expect(loser.stderr).toMatch(new RegExp(`^ai-zen-daemon: already running for .* \\((pid ${pid}|it does not answer yet)\\)\n$`));
    expect(results.find((result) => result.code === 0)!.stdout).toContain(`pid     ${pid}`);
  });

  it('D1 after kill -9 the next start works: the lock is the kernel’s, not a pid file', async () => {
    const first = await daemon.start();
    process.kill(first, 'SIGKILL');
    await waitFor(() => !alive(first), { message: 'the killed daemon to be gone' });
    // What start checks: the lock, freed by the kernel once every descriptor of the process is closed.
    await waitFor(async () => !(await daemon.running()), { timeoutMs: 30_000, message: 'the killed daemon’s lock free' });
    const second = await daemon.start();
    expect(second).not.toBe(first);
    expect((await daemon.status()).pid).toBe(second);
  });

  it('D1 stop returns once the daemon has exited: no process, no lock, no socket', async () => {
    const pid = await daemon.start();
    const stopped = await daemon.daemon(['stop']);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toBe(`ai-zen-daemon: stopped (pid ${pid})\n`);
    expect(alive(pid)).toBe(false);
    expect(await daemon.running()).toBe(false);
    await expect(fs.stat(daemon.socketPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('D1 while the daemon still starts, status says so and lists no session it has not read yet; once read, the session is there', async () => {
    const gate = path.join(path.dirname(daemon.root), 'listening-gate');
    await makeFifo(gate);
    const held = await makeDaemonRepo({ env: { AI_ZEN_TEST_LISTENING_GATE: gate } });
    try {
      const id = sessionId(3);
      await held.writeSession(id, { maxContextTokens: 100_000 });
      await held.appendLines(id, usageLine(40_000));
      await held.start();
      // Listed before the socket answered, not read: no row of question marks.
      const starting = await held.status();
      expect(starting.ready).toBe(false);
      expect(starting.sessions).toEqual([]);
      await fs.writeFile(gate, 'go');
      const read = await waitFor(async () => (await held.status()).sessions.find((session) => session.id === id) ?? null, {
        timeoutMs: 30_000,
        message: 'the session read',
      });
      expect(read.promptTokens).toBe(40_000);
    } finally {
      await held.cleanup();
    }
  });

  it('D1 a stop that comes while the daemon still starts (its socket answers, its transcripts not read yet) leaves no socket behind', async () => {
    const gate = path.join(path.dirname(daemon.root), 'listening-gate');
    await makeFifo(gate);
    const held = await makeDaemonRepo({ env: { AI_ZEN_TEST_LISTENING_GATE: gate } });
    try {
      const pid = await held.start();
      // `start` returned: the socket answers while the daemon is held before its first listing.
      const stopping = held.daemon(['stop']);
      const log = path.join(held.root, '.ai-zen', 'logs', 'daemon.log');
      await waitFor(async () => (await fs.readFile(log, 'utf8').catch(() => '')).includes('daemon shutting down'), {
        timeoutMs: 30_000,
        message: 'the stop to reach the starting daemon',
      });
      await fs.writeFile(gate, 'go');
      const stopped = await stopping;
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(alive(pid)).toBe(false);
      await expect(fs.stat(held.socketPath)).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await fs.readFile(log, 'utf8')).toContain('daemon stopped');
    } finally {
      await held.cleanup();
    }
  });

  it('D1 with no daemon running, every query is one line and exit 1', async () => {
    for (const command of [['status'], ['status', '--json'], ['sessions'], ['stop'], ['migrate']]) {
      const result = await daemon.daemon(command);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`ai-zen-daemon: no daemon is running for ${daemon.root} (start it with: ai-zen-daemon start)\n`);
      // `status --json` answers a script in JSON even then; every other query prints nothing on stdout.
      if (command.join(' ') === 'status --json') expect(JSON.parse(result.stdout)).toMatchObject({ running: false, repo: daemon.root });
      else expect(result.stdout).toBe('');
    }
  });

  it('D1 --foreground stays attached with readable logs on stderr; SIGTERM shuts it down cleanly', async () => {
    const child = spawn(process.execPath, [DAEMON_BIN, 'start', '--foreground'], {
      cwd: daemon.root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...daemon.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitFor(() => stderr.includes('daemon running'), { timeoutMs: 20_000, message: 'the foreground daemon to say it runs' });
      // Readable, not JSON: time, level, message, fields.
      expect(stderr).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}daemon running socket=\S+ log=\S+daemon.log foreground=true$/m);
      expect(stderr).not.toContain('{"level"');
      expect((await daemon.status()).pid).toBe(child.pid);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr).toMatch(/INFO {2}daemon shutting down reason=SIGTERM/);
      expect(await daemon.running()).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('D5 the IPC socket', { timeout: 60_000 }, () => {
  let daemon: DaemonRepo;
  beforeEach(async () => {
    daemon = await makeDaemonRepo();
    await daemon.start();
  });
  afterEach(async () => {
    await daemon.cleanup();
  });

  it('D5 lives in a 0700 per-user folder and is itself 0600', async () => {
    const folder = await fs.stat(path.dirname(daemon.socketPath));
    const socket = await fs.stat(daemon.socketPath);
    expect(folder.mode & 0o777).toBe(0o700);
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
  });

  it('D5 garbage, unknown and oversized messages get error replies, and the daemon carries on', async () => {
    const replies: Record<string, unknown>[] = [];
    const socket = net.connect({ path: daemon.socketPath });
    let buffer = '';
    socket.setEncoding('utf8').on('data', (text: string) => {
      buffer += text;
      let end;
      while ((end = buffer.indexOf('\f')) >= 0) {
        replies.push(JSON.parse(buffer.slice(0, end)) as Record<string, unknown>);
        buffer = buffer.slice(end + 1);
      }
    });
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    try {
      socket.write('this is not json\f');
      socket.write(`${JSON.stringify({ v: 1, id: 'x1', type: 'format-disk' })}\f`);
      socket.write(`${JSON.stringify({ v: 99, id: 'x2', type: 'status' })}\f`);
      socket.write(Buffer.alloc(2 * 1024 * 1024, 0x61));
      socket.write('\f');
      socket.write(`${JSON.stringify({ v: 1, id: 'x3', type: 'status' })}\f`);
      await waitFor(() => replies.length >= 5, { message: 'five replies' });
      const codes = replies.map((reply) => (reply.ok ? 'ok' : (reply.error as { code: string }).code));
      expect(codes).toEqual(expect.arrayContaining(['bad-json', 'unknown-type', 'unsupported-version', 'too-large', 'ok']));
      expect(replies.find((reply) => reply.id === 'x3')).toMatchObject({ ok: true, result: { repo: daemon.root } });
    } finally {
      socket.destroy();
    }
    // A half-open client that vanished mid-message is no harm either.
    const rude = net.connect({ path: daemon.socketPath });
    await new Promise<void>((resolve) => rude.once('connect', resolve));
    rude.write('{"v":1,"id":"cut","type":"sta');
    rude.destroy();
    expect((await daemon.status()).repo).toBe(daemon.root);
  });
});
