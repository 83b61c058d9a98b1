// Items 1–2: a FIFO or a symlink to /dev/zero named `*.jsonl` in `.ai-zen/sessions/`
// (a cloned repo can ship either) must not hang the daemon, pin a CPU, or keep `stop` from ending
// it. Only regular files are sessions; anything else is logged once and ignored.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IncrementalLineReader, NotRegularFileError } from '../../src/daemon/watching/incremental-reader.js';
import { makeTempRepo } from '../support/temp-repo.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';

const run = promisify(execFile);

/** No such process, or a zombie its parent has not reaped yet (it has exited). */
async function processGone(pid: number): Promise<boolean> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return stat === null || / Z /.test(stat.slice(stat.lastIndexOf(')')));
}
const DEADLINE = { timeoutMs: 30_000 };

describe('§1–2 hostile files in the sessions folder', { timeout: 90_000 }, () => {
  let daemon: DaemonRepo;
  beforeEach(async () => {
    daemon = await makeDaemonRepo();
  });
  afterEach(async () => {
    await daemon.cleanup();
  });

  it('four FIFOs and a symlink to /dev/zero named *.jsonl: logged once each and ignored; status answers, an overflow is migrated, stop ends the daemon', async () => {
    const sessions = path.join(daemon.root, '.ai-zen', 'sessions');
    await fs.mkdir(sessions, { recursive: true });
    const fifos = [101, 102, 103, 104].map((n) => path.join(sessions, `${sessionId(n)}.jsonl`));
    for (const fifo of fifos) await run('mkfifo', [fifo]);
    const zero = path.join(sessions, `${sessionId(105)}.jsonl`);
    await fs.symlink('/dev/zero', zero);
    const pid = await daemon.start();

    // Files that appear while it runs are ignored the same way.
    const lateFifo = path.join(sessions, `${sessionId(106)}.jsonl`);
    await run('mkfifo', [lateFifo]);

    const id = sessionId(1);
    await daemon.writeSession(id, { maxContextTokens: 1000 });
    await daemon.appendLines(id, usageLine(1500));
    await waitFor(async () => (await handoffDocs(daemon.root)).length === 1, { ...DEADLINE, message: 'the real session to be migrated' });

    const status = await waitFor(
      async () => {
        const current = await daemon.status();
        return current.closedSessions === 1 ? current : null;
      },
      { ...DEADLINE, message: 'status to show the migrated session' },
    );
    const ids = status.sessions.map((session) => session.id);
    for (const n of [101, 102, 103, 104, 105, 106]) expect(ids).not.toContain(sessionId(n));

    const log = path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log');
    const ignored = await waitFor(
      async () => {
        const lines = (await fs.readFile(log, 'utf8')).split('\n').filter((line) => line.includes('not a regular file, so not a session'));
        return lines.length >= 6 ? lines : null;
      },
      { ...DEADLINE, message: 'one log line per hostile file' },
    );
    expect(ignored).toHaveLength(6);
    expect(ignored.filter((line) => line.includes('it is a FIFO'))).toHaveLength(5);
    expect(ignored.filter((line) => line.includes('it is a symbolic link'))).toHaveLength(1);

    const stop = await daemon.daemon(['stop']);
    expect(stop.code).toBe(0);
    expect(await daemon.running()).toBe(false);
    await waitFor(() => processGone(pid), { timeoutMs: 10_000, message: 'the daemon process to be gone' });
  });
});

describe('64 idle IPC connections to a real daemon', { timeout: 90_000 }, () => {
  let daemon: DaemonRepo;
  beforeEach(async () => {
    daemon = await makeDaemonRepo();
  });
  afterEach(async () => {
    await daemon.cleanup();
  });

  it('with 64 idle connections open (one holding half a frame), status and stop still work', async () => {
    await daemon.start();
    const sockets: net.Socket[] = [];
    try {
      for (let index = 0; index < 64; index += 1) {
        sockets.push(
          await new Promise<net.Socket>((resolve, reject) => {
            const socket = net.connect({ path: daemon.socketPath });
            socket.once('connect', () => resolve(socket));
            socket.once('error', reject);
          }),
        );
        sockets.at(-1)!.on('error', () => {});
      }
      sockets[10]!.write('{"v":1,"id":"x","type":"sta');
      const status = await daemon.daemon(['status']);
      expect(status.code).toBe(0);
      expect(status.stdout).toContain('sessions');
      const stop = await daemon.daemon(['stop']);
      expect(stop.code).toBe(0);
      expect(await daemon.running()).toBe(false);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});

describe('the daemon keeps its own files in the project', { timeout: 90_000 }, () => {
  let daemon: DaemonRepo;
  beforeEach(async () => {
    daemon = await makeDaemonRepo();
  });
  afterEach(async () => {
    await daemon.cleanup();
  });

  it('rm -rf .ai-zen under a running daemon: .ai-zen/.gitignore and daemon.log are written again, and git add -A takes no transcript', async () => {
    await daemon.start();
    const aiZen = path.join(daemon.root, '.ai-zen');
    // As `rm -rf` run again would: the daemon may write a file into the folder while it is emptied.
    await fs.rm(aiZen, { recursive: true, force: true, maxRetries: 20 });
    const log = path.join(aiZen, 'logs', 'daemon.log');
    await waitFor(async () => (await fs.readFile(path.join(aiZen, '.gitignore'), 'utf8').catch(() => '')).includes('sessions/'), {
      ...DEADLINE,
      message: '.ai-zen/.gitignore to be written again',
    });
    await waitFor(async () => (await fs.readFile(log, 'utf8').catch(() => '')).includes('the log file was removed'), {
      ...DEADLINE,
      message: 'a new daemon.log',
    });

    const id = sessionId(3);
    await daemon.writeSession(id, { maxContextTokens: 1000 });
    await daemon.appendLines(id, usageLine(1500));
    await waitFor(async () => (await handoffDocs(daemon.root)).length === 1, { ...DEADLINE, message: 'the session to be migrated' });
    await waitFor(async () => (await fs.readFile(log, 'utf8')).includes('"event":"session.migrated"'), {
      ...DEADLINE,
      message: 'the new log to record the migration',
    });
    // The user's `git add` once the daemon's commit of the document is done: a git command of the user's
    // that meets the commit's brief index.lock fails as any concurrent git does (commit-while-user-works bounds that).
    await waitFor(async () => (await daemon.status()).handoffs.some((entry) => entry.state === 'committed'), {
      ...DEADLINE,
      message: 'the document to be committed',
    });
    await daemon.repo.git('add', '-A');
    const staged = (await daemon.repo.git('diff', '--cached', '--name-only')).split('\n').filter(Boolean);
    expect(staged.filter((file) => file.startsWith('.ai-zen/sessions/') || file.startsWith('.ai-zen/logs/'))).toEqual([]);
  });

  it('kill -9 leftovers — a 0-byte document placeholder and .git/ai-zen-commit-<pid>-<hex>.index — are removed at the next start', async () => {
    const handoffs = path.join(daemon.root, '.ai-zen', 'handoffs');
    await fs.mkdir(handoffs, { recursive: true });
    const placeholder = path.join(handoffs, '20261202-120000-00000009.md');
    await fs.writeFile(placeholder, '');
    const kept = path.join(handoffs, '20261202-120000-00000010.md');
    await fs.writeFile(kept, '# a real document\n');
    // A pid that surely belongs to no process any more: one that has exited.
    const dead = spawn('true');
    await new Promise((resolve) => dead.once('exit', resolve));
    const gitDir = path.join(daemon.root, '.git');
    const scratch = [`ai-zen-commit-${dead.pid}-deadbeef.index`, `ai-zen-commit-${dead.pid}-deadbeef.msg`].map((name) =>
      path.join(gitDir, name),
    );
    for (const file of scratch) await fs.writeFile(file, 'left by a killed commit');

    await daemon.start();
    // The daemon answers while it still starts up: its cleanup is awaited as what it does, not assumed done.
    const gone = async (file: string) => (await fs.lstat(file).catch(() => null)) === null;
    await waitFor(async () => (await gone(placeholder)) && (await Promise.all(scratch.map(gone))).every(Boolean), {
      timeoutMs: 30_000,
      message: 'the kill -9 leftovers removed at start',
    });
    expect(await fs.readFile(kept, 'utf8')).toBe('# a real document\n');

    // The name is free again: the next handoff of that session gets it, not a -2.
    const id = '00000009-aaaa-4bbb-8ccc-dddddddddddd';
    await daemon.writeSession(id, { maxContextTokens: 1000 });
    await daemon.appendLines(id, usageLine(1500));
    const docs = await waitFor(
      async () => {
        const found = (await handoffDocs(daemon.root)).filter((doc) => doc.includes('00000009'));
        return found.length > 0 ? found : null;
      },
      { ...DEADLINE, message: 'the handoff of the session' },
    );
    expect(docs.every((doc) => !doc.endsWith('-2.md'))).toBe(true);
  });
});

describe('a session file without its header line', { timeout: 90_000 }, () => {
  let daemon: DaemonRepo;
  beforeEach(async () => {
    daemon = await makeDaemonRepo();
  });
  afterEach(async () => {
    await daemon.cleanup();
  });

  it('is logged, and status says so — and flags 5,000,000 tokens as over the configured window', async () => {
    await daemon.start();
    const id = sessionId(20);
    await fs.mkdir(path.join(daemon.root, '.ai-zen', 'sessions'), { recursive: true });
    await fs.writeFile(path.join(daemon.root, '.ai-zen', 'sessions', `${id}.jsonl`), `${JSON.stringify(usageLine(5_000_000))}\n`);
    // The row once the daemon has judged the file: CI's loaded run saw it listed first with no action yet.
    const row = await waitFor(
      async () => (await daemon.status()).sessions.find((session) => session.id === id && session.action !== null),
      {
        ...DEADLINE,
        message: 'the headerless session in status',
      },
    );
    expect(row.action).toBe(
      'no header line: its window is unknown and the daemon cannot migrate it; 5M tokens is over the configured window (128k)',
    );
    const text = await daemon.daemon(['status']);
    expect(text.stdout).toContain('no header line');
    const log = path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log');
    const lines = (await fs.readFile(log, 'utf8')).split('\n').filter((line) => line.includes('no session header line'));
    expect(lines).toHaveLength(1);
  });
});

describe('a failed auto-migration is tried again', { timeout: 120_000 }, () => {
  let daemon: DaemonRepo;
  beforeEach(async () => {
    daemon = await makeDaemonRepo();
  });
  afterEach(async () => {
    await daemon.cleanup();
  });

  it('the handoffs folder was a symlink, then fixed: status shows the command that retries it now, and the daemon retries by itself', async () => {
    const outside = path.join(path.dirname(daemon.root), 'outside');
    await fs.mkdir(outside);
    await fs.mkdir(path.join(daemon.root, '.ai-zen'), { recursive: true });
    const handoffs = path.join(daemon.root, '.ai-zen', 'handoffs');
    await fs.symlink(outside, handoffs);
    await daemon.start();
    const id = sessionId(30);
    await daemon.writeSession(id, { maxContextTokens: 1000 });
    await daemon.appendLines(id, usageLine(1500));
    const failed = await waitFor(
      async () => (await daemon.status()).sessions.find((session) => session.id === id && session.action?.startsWith('failed:')),
      { ...DEADLINE, message: 'the failed migration in status' },
    );
    expect(failed.action).toContain(`or now with: ai-zen-daemon migrate ${id}`);
    expect(await fs.readdir(outside)).toEqual([]);

    await fs.rm(handoffs);
    await waitFor(async () => (await handoffDocs(daemon.root)).length === 1, {
      timeoutMs: 90_000,
      message: 'the retried migration to write its document',
    });
    const status = await waitFor(
      async () => {
        const current = await daemon.status();
        return current.closedSessions === 1 ? current : null;
      },
      { ...DEADLINE, message: 'the session to be migrated' },
    );
    expect(status.sessions.some((session) => session.id === id)).toBe(false);
  });
});

describe('the reader reads only regular files, and never past the size it opened', () => {
  it('a FIFO, a symlink to /dev/zero and a folder throw NotRegularFileError without blocking', async () => {
    await using repo = await makeTempRepo({ git: false });
    const fifo = path.join(repo.root, 'a.jsonl');
    await run('mkfifo', [fifo]);
    const zero = path.join(repo.root, 'b.jsonl');
    await fs.symlink('/dev/zero', zero);
    const folder = path.join(repo.root, 'c.jsonl');
    await fs.mkdir(folder);
    const sink = { line() {} };
    for (const [file, what] of [
      [fifo, 'a FIFO'],
      [zero, 'a symbolic link'],
      [folder, 'a folder'],
    ] as const) {
      const error = await new IncrementalLineReader(file).read(sink).catch((caught: unknown) => caught);
      expect(NotRegularFileError.isInstance(error)).toBe(true);
      expect((error as NotRegularFileError).what).toBe(what);
    }
  });
});

describe('a forced exit ends the process even with a thread stuck in the kernel', { timeout: 30_000 }, () => {
  it('forceExit ends a process whose thread-pool thread is blocked opening a FIFO (process.exit would wait for ever)', async () => {
    await using repo = await makeTempRepo({ git: false });
    const fifo = path.join(repo.root, 'stuck.jsonl');
    await run('mkfifo', [fifo]);
    const forceExit = path.resolve('dist', 'daemon', 'process', 'force-exit.js');
    const script = `
      import fs from 'node:fs';
      import { forceExit } from ${JSON.stringify(forceExit)};
      fs.promises.open(${JSON.stringify(fifo)}, 'r').catch(() => {});
      setTimeout(() => { process.stdout.write('blocked\\n'); forceExit(); }, 200);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
    const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    expect(output).toBe('blocked\n');
    expect(ended).toEqual({ code: null, signal: 'SIGKILL' });
  });
});
