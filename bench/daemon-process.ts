// A real daemon process for the benchmark: `node <DAEMON_NODE_OPTIONS> dist/cli/ai-zen-daemon.js start --foreground`
// (the options `start` gives the detached daemon)
// in a temp project (the same code path as `start`, minus the detaching, so its pid is the
// child's), spoken to over its IPC socket, stopped with `stop` and, past a deadline, killed.
import { spawn, type ChildProcess } from 'node:child_process';
import fsSync, { promises as fs } from 'node:fs';
import { daemonLogPath } from '../dist/daemon/process/daemon-logger.js';
import { DAEMON_NODE_OPTIONS } from '../dist/daemon/process/daemon-node-options.js';
import { StatusInfo } from '../dist/daemon/side-channels/status-schema.js';
import { connectIpc, type IpcClient } from '../dist/ipc/client.js';
import { socketPathFor } from '../dist/ipc/socket-path.js';
import { pause } from './statistics.js';

export interface DaemonProcess {
  readonly pid: number;
  readonly socketPath: string;
  /** A connection (made once the daemon answers). */
  connect(): Promise<IpcClient>;
  /**
   * Waits for the daemon's own "daemon ready" log line (no IPC: asking status over and over while
   * thousands of sessions load would itself cost the daemon memory); resolves with its session count.
   */
  waitForReadyLine(timeoutMs: number): Promise<number>;
  /** Asks for status until `accept` says yes; the last status, or throws at the deadline. */
  waitForStatus(accept: (status: StatusInfo) => boolean, timeoutMs: number): Promise<StatusInfo>;
  /** `stop` over IPC, then SIGKILL to this child if it has not exited within the deadline. */
  stop(): Promise<void>;
}

export async function startDaemonProcess(options: {
  bin: string;
  root: string;
  env: NodeJS.ProcessEnv;
  outputFile: string;
}): Promise<DaemonProcess> {
  const output = fsSync.openSync(options.outputFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [...DAEMON_NODE_OPTIONS, options.bin, 'start', '--foreground'], {
      cwd: options.root,
      env: options.env,
      stdio: ['ignore', output, output],
    });
  } finally {
    fsSync.closeSync(output);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error('the daemon process did not start');
  let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      resolve();
    });
  });
  const socketPath = socketPathFor(options.root, { env: options.env });

  const whyGone = () => {
    const lines = fsSync.readFileSync(options.outputFile, 'utf8').trim().split('\n');
    // Node's fatal output puts the error's name and message above the stack: show that line.
    const error = lines.find((line) => /\b\w*Error\b|ai-zen-daemon:/.test(line)) ?? lines.at(-1) ?? '';
    const tail = error.trim();
    const how = exited as { code: number | null; signal: NodeJS.Signals | null } | null;
    return `the daemon exited (${how?.signal ?? `code ${how?.code}`}): ${tail.slice(0, 400)}`;
  };

  async function askStatus(): Promise<StatusInfo | null> {
    let client: IpcClient;
    try {
      client = await connectIpc({ socketPath, repoRoot: options.root, timeoutMs: 2000 });
    } catch {
      return null;
    }
    try {
      const parsed = StatusInfo.safeParse(await client.request('status', undefined, { timeoutMs: 60_000 }));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    } finally {
      await client.close().catch(() => {});
    }
  }

  return {
    pid,
    socketPath,
    connect: () => connectIpc({ socketPath, repoRoot: options.root, timeoutMs: 5000 }),
    async waitForReadyLine(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      const log = daemonLogPath(options.root);
      for (;;) {
        if (exited) throw new Error(whyGone());
        const text = await fs.readFile(log, 'utf8').catch(() => '');
        // The log outlives a daemon: only this process's line counts.
        const ready = text
          .split('\n')
          .filter((line) => line.includes('"daemon ready"'))
          .map((line) => JSON.parse(line) as { pid?: unknown; sessions?: unknown })
          .filter((entry) => entry.pid === pid)
          .map((entry) => entry.sessions)
          .at(-1);
        if (typeof ready === 'number') return ready;
        if (Date.now() > deadline) throw new Error(`the daemon did not log "daemon ready" within ${timeoutMs / 1000} s`);
        await pause(200);
      }
    },
    async waitForStatus(accept, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      let last: StatusInfo | null = null;
      for (;;) {
        if (exited) throw new Error(whyGone());
        last = (await askStatus()) ?? last;
        if (last && accept(last)) return last;
        if (Date.now() > deadline) {
          throw new Error(
            `the daemon did not reach the expected state within ${timeoutMs / 1000} s (last status: ${last ? `${last.sessions.length} open sessions, ready ${last.ready}` : 'none'})`,
          );
        }
        await pause(200);
      }
    },
    async stop() {
      if (exited) return;
      try {
        const client = await connectIpc({ socketPath, repoRoot: options.root, timeoutMs: 2000 });
        await client.request('stop', undefined, { timeoutMs: 5000 }).catch(() => {});
        await client.close().catch(() => {});
      } catch {
        child.kill('SIGTERM');
      }
      const stopped = await Promise.race([exit.then(() => true), pause(15_000).then(() => false)]);
      if (!stopped) {
        child.kill('SIGKILL');
        await exit;
      }
    },
  };
}
