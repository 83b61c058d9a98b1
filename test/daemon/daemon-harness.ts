// Real daemon processes in real temp git repos: `node dist/cli/ai-zen-daemon.js` with its own
// AI_ZEN_HOME and XDG_RUNTIME_DIR (the commands that start, ask and stop it run in this process,
// run-cli-in-process.ts), raw v1 session lines written as another agent would, and cleanup that
// leaves no daemon behind (kill -9 of every pid a start printed) and fails the test when `stop` did
// not end the daemon cleanly.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { trustProject } from '../../src/config/trust.js';
import { requestDaemon } from '../../src/cli/shared/daemon-client.js';
import { StatusInfo, StopReply } from '../../src/daemon/side-channels/status-schema.js';
import { connectIpc, type IpcClient } from '../../src/ipc/client.js';
import { socketPathFor } from '../../src/ipc/socket-path.js';
import { daemonLockName, isLockHeld } from '../../src/lock/os-lock.js';
import { runCli, type CliResult } from '../support/run-cli-in-process.js';
import { runCli as runScript } from '../support/run-cli.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';
import { waitFor } from '../support/wait-for.js';

export const DAEMON_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'cli', 'ai-zen-daemon.js');

export interface DaemonRepo {
  readonly repo: TempRepo;
  readonly root: string;
  /** The environment the daemon and its CLI run with. */
  readonly env: Record<string, string>;
  readonly socketPath: string;
  /** `ai-zen-daemon <args>` in `cwd` (default the root). */
  daemon(args: readonly string[], options?: { cwd?: string; timeoutMs?: number }): Promise<CliResult>;
  /** `start`, expecting success; returns the pid it printed. */
  start(): Promise<number>;
  status(): Promise<StatusInfo>;
  running(): Promise<boolean>;
  /** An IPC client on the daemon's socket (closed by cleanup). */
  connect(): Promise<IpcClient>;
  /** Writes a raw v1 session file header (and more lines) as another agent would. */
  writeSession(id: string, options: { maxContextTokens: number; model?: string }): Promise<string>;
  appendLines(id: string, ...lines: unknown[]): Promise<void>;
  cleanup(): Promise<void>;
}

export function sessionId(n: number): string {
  return `${String(n).padStart(8, '0')}-aaaa-4bbb-8ccc-dddddddddddd`;
}

/** A v1 session header line for `cwd`, with a window of 1000 tokens unless told. */
export const headerLine = (id: string, cwd: string, maxContextTokens = 1000) => ({
  type: 'session',
  v: 1,
  id,
  createdAt: '2026-12-02T00:00:00Z',
  cwd,
  model: 'm',
  maxContextTokens,
  previousId: null,
});
export const usageLine = (promptTokens: number) => ({
  type: 'usage',
  usage: { prompt_tokens: promptTokens, completion_tokens: 10, total_tokens: promptTokens + 10 },
});
export const messageLine = (role: 'system' | 'user' | 'assistant', content: string, definition = false) =>
  definition ? { type: 'message', message: { role, content }, definition: true } : { type: 'message', message: { role, content } };

export async function makeDaemonRepo(
  options: {
    env?: Record<string, string>;
    config?: object /** Trust the repo's config (T4) as `ai-zen-daemon trust` would. */;
    trusted?: boolean;
    /** Run the commands as processes: a test of what a kill -9 leaves to the next start of one. */
    commandsAsProcesses?: boolean;
  } = {},
): Promise<DaemonRepo> {
  const repo = await makeTempRepo();
  const root = repo.root;
  const runtime = path.join(path.dirname(root), 'run');
  await fs.mkdir(runtime, { mode: 0o700 });
  const env: Record<string, string> = {
    AI_ZEN_HOME: repo.home,
    XDG_RUNTIME_DIR: runtime,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: path.join(repo.home, 'gitconfig'),
    // Never the machine's own Codex rollouts (X3): a test that drives Codex passes its own.
    CODEX_HOME: path.join(repo.home, 'codex-home'),
    PI_CODING_AGENT_DIR: path.join(repo.home, 'pi-agent'),
    QWEN_HOME: path.join(repo.home, 'qwen-home'),
    GEMINI_CLI_HOME: path.join(repo.home, 'gemini-home'),
    CLINE_DIR: path.join(repo.home, 'cline-home'),
    // opencode's and Kilo Code's databases are under it: never the machine's own.
    XDG_DATA_HOME: path.join(repo.home, 'xdg-data'),
    ...options.env,
  };
  if (options.config) {
    await fs.mkdir(path.join(root, '.ai-zen'), { recursive: true });
    await fs.writeFile(path.join(root, '.ai-zen', 'config.json'), JSON.stringify(options.config));
  }
  if (options.trusted) await trustProject(root, env);
  const socketPath = socketPathFor(root, { env });
  const pids = new Set<number>();
  const clients: IpcClient[] = [];
  const sessionsDir = path.join(root, '.ai-zen', 'sessions');

  const daemon = async (args: readonly string[], runOptions: { cwd?: string; timeoutMs?: number } = {}) => {
    // In this process, as a test of the command's logic; but `continue` without --print hands its own
    // terminal (stdin, stdout) to the client it starts, and only a process has one to hand.
    const run = options.commandsAsProcesses || (args[0] === 'continue' && !args.includes('--print')) ? runScript : runCli;
    const result = await run(args, { cwd: runOptions.cwd ?? root, env, bin: DAEMON_BIN, timeoutMs: runOptions.timeoutMs ?? 30_000 });
    const pid = /pid\s+(\d+)/.exec(result.stdout)?.[1];
    if (pid) pids.add(Number(pid));
    return result;
  };
  const fileOf = (id: string) => path.join(sessionsDir, `${id}.jsonl`);

  return {
    repo,
    root,
    env,
    socketPath,
    daemon,
    async start() {
      const result = await daemon(['start']);
      if (result.code !== 0) throw new Error(`start failed (${result.code}): ${result.stderr}`);
      return Number(/pid\s+(\d+)/.exec(result.stdout)?.[1]);
    },
    // The request `ai-zen-daemon status --json` sends, checked by the same schema, from this process:
    // tests poll it in waitFor loops, and a CLI process per poll cost ~0.5 s of CPU each, about a
    // quarter of all the CPU the real-client files used on CI's two cores. The command itself is
    // proven where it is the subject (daemon(['status', ...]) in daemon-lifecycle, cli-habits, …).
    status: () => requestDaemon(root, env, 'status', undefined, StatusInfo),
    running: () => isLockHeld(daemonLockName(root), { env }),
    async connect() {
      const client = await connectIpc({ socketPath, repoRoot: root, timeoutMs: 5000 });
      clients.push(client);
      return client;
    },
    async writeSession(id, sessionOptions) {
      await fs.mkdir(sessionsDir, { recursive: true });
      const header = {
        type: 'session',
        v: 1,
        id,
        createdAt: new Date().toISOString(),
        cwd: root,
        model: sessionOptions.model ?? 'test-model',
        maxContextTokens: sessionOptions.maxContextTokens,
        previousId: null,
      };
      const lines = [
        header,
        messageLine('system', 'You are a coding agent.', true),
        messageLine('user', 'Add an install section to the README.'),
        messageLine('assistant', 'Added it to README.md.'),
      ];
      await fs.writeFile(fileOf(id), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
      return fileOf(id);
    },
    async appendLines(id, ...lines) {
      await fs.appendFile(fileOf(id), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    },
    async cleanup() {
      for (const client of clients) await client.close().catch(() => {});
      // A stop request ends the daemon within its deadline in every test that
      // starts one. A stop that fails or times out fails the test (after the kill -9 below, so no
      // daemon is left behind either way). The request is the one `ai-zen-daemon stop` sends, sent
      // from here: a CLI process per test cost CI ~0.5 s of CPU each on a loaded machine, and the
      // command itself is proven where it is the subject (daemon-lifecycle.test.ts and others).
      let stopFailure: string | null = null;
      if (await isLockHeld(daemonLockName(root), { env })) {
        stopFailure = await stopOverIpc(root, env);
      }
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await waitFor(async () => !(await isLockHeld(daemonLockName(root), { env })), {
        timeoutMs: 10_000,
        message: 'the daemon lock to be free after cleanup',
      }).catch(() => {});
      await repo.cleanup();
      if (stopFailure) throw new Error(`cleanup: ${stopFailure}`);
    },
  };
}

/** What `ai-zen-daemon stop` does, in this process: the stop request, then its exit (the lock freed) within 40 s. */
async function stopOverIpc(root: string, env: Record<string, string>): Promise<string | null> {
  try {
    await requestDaemon(root, env, 'stop', undefined, StopReply);
  } catch (error) {
    // It may have stopped (or been stopped) between the lock check and the request.
    if (!(await isLockHeld(daemonLockName(root), { env }))) return null;
    return `the stop request failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  return waitFor(async () => !(await isLockHeld(daemonLockName(root), { env })), { timeoutMs: 40_000, intervalMs: 50 }).then(
    () => null,
    () => 'the daemon did not exit within 40 s of the stop request',
  );
}

/** Paths of the handoff documents in the repo. */
export async function handoffDocs(root: string): Promise<string[]> {
  const dir = path.join(root, '.ai-zen', 'handoffs');
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  return names.filter((name) => name.endsWith('.md')).map((name) => `.ai-zen/handoffs/${name}`);
}

/**
 * Writes a document into the handoffs folder and returns the `handoff` line that records it as
 * ai-zen's writer seals it (T1: its sha256), for a test to append; `extra` adds or replaces fields.
 */
export async function sealedHandoffLine(root: string, doc: string, text: string, extra: Record<string, unknown> = {}) {
  await fs.mkdir(path.join(root, '.ai-zen', 'handoffs'), { recursive: true });
  await fs.writeFile(path.join(root, doc), text);
  return {
    type: 'handoff',
    at: new Date().toISOString(),
    path: doc,
    executor: 'self',
    mode: 'handoff',
    downgrades: [],
    cost: { requests: 1, prompt_tokens: 10, completion_tokens: 10 },
    sha256: createHash('sha256').update(text).digest('hex'),
    ...extra,
  };
}

/** A named pipe at `file`: a test holds a daemon at a start gate (start-gate.ts) until it writes to it. */
export async function makeFifo(file: string): Promise<void> {
  await new Promise<void>((resolve, reject) =>
    spawn('mkfifo', [file]).on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`mkfifo: ${code}`)))),
  );
}
