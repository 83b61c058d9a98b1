// The real pi coding agent (`@mariozechner/pi-coding-agent`, a Node CLI), run offline: a temp HOME
// whose `~/.pi/agent/models.json` points pi's built-in `anthropic` provider at the fake Anthropic
// server (test/support/fake-anthropic.ts), ANTHROPIC_API_KEY a fake key (with it alone pi picks its
// default model, anthropic/claude-opus-4-7), and PI_OFFLINE=1 (no version check, no tool downloads).
// Not a dependency of ai-zen: importing this module installs the pinned client into the test cache
// on first use (agent-clients.ts), so a test file that runs it waits for it, or fails saying why.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { agentClientPin, ensureAgentClient, installedPackage } from './agent-clients.js';
import { startTmux, type TmuxSession } from './tmux.js';

const pin = agentClientPin('pi');
await ensureAgentClient(pin);
/** The package's entry (`pi` on a user's PATH). */
export const PI_CLI = path.join(installedPackage(pin), 'dist', 'cli.js');
/** The `pi` command as a user's PATH would hold it (for `continue --in pi`). */
export const PI_BIN = path.join(installedPackage(pin), '..', '..', '.bin', 'pi');
/** What pi runs with no model set and only an Anthropic key: its default (model-resolver.ts, 0.73). */
export const PI_DEFAULT_MODEL = 'anthropic/claude-opus-4-7';

export interface PiHome {
  readonly home: string;
  /** ~/.pi/agent: models.json, settings.json, sessions/--<cwd>--/<timestamp>_<uuid>.jsonl */
  readonly agentDir: string;
  readonly sessions: string;
}

export async function makePiHome(base: string, options: { readonly baseURL: string; readonly settings?: object }): Promise<PiHome> {
  const home = path.join(base, 'pi-user');
  const agentDir = path.join(home, '.pi', 'agent');
  await fs.mkdir(agentDir, { recursive: true });
  await fs.writeFile(path.join(agentDir, 'models.json'), JSON.stringify({ providers: { anthropic: { baseUrl: options.baseURL } } }));
  if (options.settings) await fs.writeFile(path.join(agentDir, 'settings.json'), JSON.stringify(options.settings));
  return { home, agentDir, sessions: path.join(agentDir, 'sessions') };
}

export function piEnv(home: PiHome, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = { HOME: home.home, ANTHROPIC_API_KEY: 'fake-key', PI_OFFLINE: '1', NO_COLOR: '1' };
  for (const key of ['PATH', 'TMPDIR', 'LANG', 'TZ']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}

export interface PiResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface PiRunOptions {
  readonly cwd: string;
  readonly home: PiHome;
  readonly timeoutMs?: number;
  readonly env?: Readonly<Record<string, string>>;
}

/** Runs `pi <args>` in `cwd` to completion; a run past `timeoutMs` is killed and rejects. */
export function runPi(args: readonly string[], options: PiRunOptions): Promise<PiResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PI_CLI, ...args], {
      cwd: options.cwd,
      env: piEnv(options.home, options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timeoutMs = options.timeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`pi ${args.join(' ')} ran past ${timeoutMs} ms\n${stderr}`));
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

/** Every session file pi wrote, oldest first. */
export async function listPiSessions(home: PiHome): Promise<string[]> {
  const found: string[] = [];
  for (const folder of await fs.readdir(home.sessions).catch(() => [] as string[]))
    for (const name of await fs.readdir(path.join(home.sessions, folder)).catch(() => [] as string[]))
      if (name.endsWith('.jsonl')) found.push(path.join(home.sessions, folder, name));
  return found.sort((a, b) => path.basename(a).localeCompare(path.basename(b)));
}

export interface PiRpc {
  /** Sends a prompt as a person typing it (pi's RPC `prompt` command). */
  prompt(message: string): void;
  /** Every event pi printed so far (JSON lines on stdout). */
  readonly events: readonly Record<string, unknown>[];
  readonly stderr: () => string;
  /** Ends pi as a terminal's close would (stdin closed, SIGTERM) and waits for it (SIGKILL past the deadline). */
  close(timeoutMs?: number): Promise<number | null>;
}

/**
 * `pi --mode rpc`: pi as a person runs it (its extensions see a UI, `ctx.hasUI`), driven over its
 * JSON protocol on stdin/stdout, records split on `\n` only (rpc.md).
 */
export function startPiRpc(args: readonly string[], options: PiRunOptions): PiRpc {
  const child = spawn(process.execPath, [PI_CLI, '--mode', 'rpc', ...args], {
    cwd: options.cwd,
    env: piEnv(options.home, options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const events: Record<string, unknown>[] = [];
  let buffered = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const record = buffered.slice(0, end).replace(/\r$/, '');
      buffered = buffered.slice(end + 1);
      try {
        events.push(JSON.parse(record) as Record<string, unknown>);
      } catch {
        // not a protocol record
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    prompt: (message) => child.stdin.write(`${JSON.stringify({ type: 'prompt', message })}\n`),
    events,
    stderr: () => stderr,
    async close(timeoutMs = 15_000) {
      child.stdin.end();
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** `pi "<prompt>"` at a terminal (tmux): pi's interactive TUI, as most people run it. */
export function startInteractivePi(prompt: string, options: PiRunOptions): Promise<TmuxSession> {
  return startTmux({
    command: [process.execPath, PI_CLI, prompt],
    cwd: options.cwd,
    env: { ...piEnv(options.home, options.env), TERM: 'xterm-256color' },
    width: 140,
    height: 50,
  });
}
