// The real Cline CLI (`cline` 3.x: a Node wrapper over a compiled binary), run offline: its own folder
// (CLINE_DIR) in a temp home, `cline auth -p openai -k <key> -m <model> -b <baseURL>` pointing its
// OpenAI-compatible provider at the fake OpenAI server (test/support/fake-openai.ts), then
// `cline --json "<prompt>"`. Each run leaves Cline's background hub behind (a process of its own,
// named in `data/locks/hub/production.json`, or not): `stopHub` ends it. Not a dependency of
// ai-zen: importing this module installs the pinned client into the test cache on first use
// (agent-clients.ts), so a test file that runs it waits for it, or fails saying why.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { agentClientPin, clientFolder, ensureAgentClient } from './agent-clients.js';
import { processAlive } from './process-alive.js';
import { startTmux, type TmuxSession } from './tmux.js';
import { waitFor } from './wait-for.js';

const pin = agentClientPin('cline');
await ensureAgentClient(pin);
/** The `cline` command as a user's PATH would hold it (for `continue --in cline`). */
export const CLINE_BIN = path.join(clientFolder(pin), 'node_modules', '.bin', 'cline');

export interface ClineHome {
  /** CLINE_DIR: settings, data/sessions/<id>/, data/db, data/locks/hub. */
  readonly dir: string;
  readonly sessions: string;
  /** The port its hub listens on: one of its own, so two tests never share a hub. */
  readonly hubPort: number;
}

export async function makeClineHome(base: string): Promise<ClineHome> {
  const dir = path.join(base, 'cline-user', '.cline');
  await fs.mkdir(dir, { recursive: true });
  return { dir, sessions: path.join(dir, 'data', 'sessions'), hubPort: await freePort() };
}

export function clineEnv(home: ClineHome, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {
    HOME: path.dirname(home.dir),
    CLINE_DIR: home.dir,
    CLINE_HUB_PORT: String(home.hubPort),
    CLINE_NO_AUTO_UPDATE: '1',
    NO_COLOR: '1',
  };
  for (const key of ['PATH', 'TMPDIR', 'LANG', 'TZ']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}

export interface ClineResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `cline <args>` in `cwd` to completion; a run past `timeoutMs` is killed and rejects. */
export function runCline(
  args: readonly string[],
  options: { readonly cwd: string; readonly home: ClineHome; readonly timeoutMs?: number; readonly env?: Readonly<Record<string, string>> },
): Promise<ClineResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLINE_BIN, [...args], {
      cwd: options.cwd,
      env: clineEnv(options.home, options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timeoutMs = options.timeoutMs ?? 90_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cline ${args.join(' ')} ran past ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * `cline` as a person runs it: its terminal interface (tmux) in `cwd`, ready for a prompt. Without
 * ClinePass's notice, which would take the first key typed.
 */
export async function startInteractiveCline(options: {
  readonly cwd: string;
  readonly home: ClineHome;
  readonly env?: Readonly<Record<string, string>>;
}): Promise<TmuxSession> {
  const terminal = await startTmux({
    command: [CLINE_BIN],
    cwd: options.cwd,
    env: { ...clineEnv(options.home, options.env), CLINE_DISABLE_CLINE_PASS_NOTICE: '1', NO_COLOR: undefined, TERM: 'xterm-256color' },
    width: 140,
    height: 50,
  });
  await terminal.waitForScreen(/❯ What can I do for you\?/, { timeoutMs: 60_000 });
  return terminal;
}

/** `cline auth` for the OpenAI-compatible provider at `baseURL`, with `model`. */
export async function authenticateCline(home: ClineHome, cwd: string, baseURL: string, model: string): Promise<void> {
  const result = await runCline(['auth', '-p', 'openai', '-k', 'sk-fake', '-m', model, '-b', baseURL], { cwd, home });
  if (result.code !== 0) throw new Error(`cline auth exited ${result.code}: ${result.stderr}`);
}

/** Every session's messages file Cline wrote (`<id>/<id>.messages.json`), oldest first (ids start with the time). */
export async function listClineSessions(home: ClineHome): Promise<string[]> {
  const ids = (await fs.readdir(home.sessions).catch(() => [] as string[])).sort();
  return ids.map((id) => path.join(home.sessions, id, `${id}.messages.json`));
}

/**
 * Ends the hubs Cline left running — the pid its discovery record names, and any `--cline-hub-daemon`
 * of this home (an interactive `cline` starts one its record does not name) — and waits until they are gone.
 */
export async function stopHub(home: ClineHome): Promise<void> {
  const record = await fs.readFile(path.join(home.dir, 'data', 'locks', 'hub', 'production.json'), 'utf8').catch(() => null);
  const named = record === null ? null : (JSON.parse(record) as { pid?: unknown }).pid;
  const pids = new Set([...(typeof named === 'number' ? [named] : []), ...(await hubsOf(home))]);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      pids.delete(pid); // gone already
    }
  }
  await waitFor(() => [...pids].every((pid) => !processAlive(pid)), { message: `Cline's hubs (${[...pids].join(', ')}) ended` });
}

/** The processes running Cline's hub with this home's CLINE_DIR. */
async function hubsOf(home: ClineHome): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await fs.readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const [command, environ] = await Promise.all(
      ['cmdline', 'environ'].map((name) => fs.readFile(`/proc/${entry}/${name}`, 'utf8').catch(() => '')),
    );
    if (command!.includes('--cline-hub-daemon') && environ!.split('\0').includes(`CLINE_DIR=${home.dir}`)) pids.push(Number(entry));
  }
  return pids;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
