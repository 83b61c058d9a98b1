// T6: no other local user can take, fake or block the daemon's or a session's lock.
// A daemon started under one TMPDIR / XDG_RUNTIME_DIR is found from any other.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { daemonLockName, isLockHeld, sessionLockName } from '../../src/lock/os-lock.js';
import { runFolder } from '../../src/paths.js';
import { runCli } from '../support/run-cli-in-process.js';
import { waitFor } from '../support/wait-for.js';
import { DAEMON_BIN, handoffDocs, makeDaemonRepo, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';

const canBecomeNobody =
  process.getuid?.() === 0 && spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'true']).status === 0;

/** A process of another user (nobody) that squats every lock address it can of the given names. */
async function squatAsNobody(
  names: readonly string[],
  runFolderPath: string,
): Promise<{ child: ChildProcess; report: Record<string, string> }> {
  const script = `
    const net = require('node:net');
    const [folder, ...names] = process.argv.slice(1);
    const report = {};
    let pending = names.length * 2;
    const done = () => { if (--pending === 0) process.stdout.write(JSON.stringify(report) + '\\n'); };
    for (const name of names) {
      // The attack that worked before: the abstract name anyone could compute.
      net.createServer().on('error', (e) => { report['abstract ' + name] = e.code; done(); })
        .listen({ path: '\\0ai-zen/' + name }, () => { report['abstract ' + name] = 'bound'; done(); });
      // And the lock file in the user's run folder.
      net.createServer().on('error', (e) => { report['file ' + name] = e.code; done(); })
        .listen({ path: folder + '/' + name + '.lock' }, () => { report['file ' + name] = 'bound'; done(); });
    }
    process.stdin.resume();`;
  const child = spawn(
    'setpriv',
    ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script, runFolderPath, ...names],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      if (buffer.includes('\n')) resolve(buffer.slice(0, buffer.indexOf('\n')));
    });
    child.once('exit', (code) => reject(new Error(`the squatter exited (${code})`)));
  });
  return { child, report: JSON.parse(line) as Record<string, string> };
}

describe('T6 locks of the user alone', () => {
  let daemon: DaemonRepo | null = null;
  let squatter: ChildProcess | null = null;
  afterEach(async () => {
    squatter?.kill('SIGKILL');
    squatter = null;
    await daemon?.cleanup();
    daemon = null;
  });

  it.skipIf(!canBecomeNobody)(
    'T6 another user squatting the daemon and session lock names cannot make start say "already running" nor make a session look owned',
    async () => {
      daemon = await makeDaemonRepo();
      const id = sessionId(61);
      const file = await daemon.writeSession(id, { maxContextTokens: 1000 });
      const folder = runFolder(daemon.env);
      await fs.mkdir(folder, { recursive: true, mode: 0o700 });
      const squat = await squatAsNobody([daemonLockName(daemon.root), sessionLockName(file)], folder);
      squatter = squat.child;
      // The old names are computable and free to bind; the real ones sit where nobody cannot go.
      expect(
        Object.entries(squat.report)
          .filter(([key]) => key.startsWith('abstract'))
          .map(([, value]) => value),
      ).toEqual(['bound', 'bound']);
      expect(
        Object.entries(squat.report)
          .filter(([key]) => key.startsWith('file'))
          .map(([, value]) => value),
      ).toEqual(['EACCES', 'EACCES']);

      expect(await isLockHeld(sessionLockName(file), { env: daemon.env })).toBe(false);
      const pid = await daemon.start();
      expect(pid).toBeGreaterThan(0);
      // The session is nobody's: the daemon hands it over itself when it overflows.
      await daemon.appendLines(id, usageLine(5000));
      await waitFor(async () => (await handoffDocs(daemon!.root)).length === 1, {
        timeoutMs: 30_000,
        message: 'the daemon to hand off the unowned session',
      });
    },
  );
});

describe('one daemon, whatever the environment', () => {
  let daemon: DaemonRepo | null = null;
  afterEach(async () => {
    await daemon?.cleanup();
    daemon = null;
  });

  it('a daemon started with one TMPDIR and XDG_RUNTIME_DIR answers status and stop from another', async () => {
    daemon = await makeDaemonRepo();
    const base = path.dirname(daemon.root);
    const first = path.join(base, 'env-a');
    const second = path.join(base, 'env-b');
    await fs.mkdir(first, { mode: 0o700 });
    await fs.mkdir(second, { mode: 0o700 });
    const started = await runCli(['start'], {
      cwd: daemon.root,
      bin: DAEMON_BIN,
      env: { ...daemon.env, TMPDIR: first, XDG_RUNTIME_DIR: first },
      timeoutMs: 30_000,
    });
    expect(started.code).toBe(0);
    const pid = Number(/pid\s+(\d+)/.exec(started.stdout)?.[1]);

    const otherEnv = { ...daemon.env, TMPDIR: second, XDG_RUNTIME_DIR: second };
    const status = await runCli(['status', '--json'], { cwd: daemon.root, bin: DAEMON_BIN, env: otherEnv, timeoutMs: 30_000 });
    expect(status.stderr).toBe('');
    expect((JSON.parse(status.stdout) as { pid: number }).pid).toBe(pid);
    const again = await runCli(['start'], { cwd: daemon.root, bin: DAEMON_BIN, env: otherEnv, timeoutMs: 30_000 });
    expect(again.code).toBe(3);
    expect(again.stderr).toContain(`(pid ${pid})`);
    const stopped = await runCli(['stop'], { cwd: daemon.root, bin: DAEMON_BIN, env: otherEnv, timeoutMs: 60_000 });
    expect(stopped.code).toBe(0);
    expect(await daemon.running()).toBe(false);
  });
});
