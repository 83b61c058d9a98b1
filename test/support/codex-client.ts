// The real Codex CLI (`@openai/codex`, a native binary in the npm package), run offline: a temp
// HOME and CODEX_HOME whose config.toml names one provider, the fake Responses server
// (test/support/fake-responses.ts). `codex exec` runs without approvals or sandbox so its tools run.
// Not a dependency of ai-zen: importing this module installs the pinned client into the test
// cache on first use (agent-clients.ts), so a test file that runs it waits for it, or fails saying why.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { agentClientPin, ensureAgentClient, installedPackage } from './agent-clients.js';

const pin = agentClientPin('codex');
await ensureAgentClient(pin);
/** The package's launcher: it finds the platform's native binary. */
export const CODEX_LAUNCHER = path.join(installedPackage(pin), 'bin', 'codex.js');
/** The `codex` command as a user's PATH would hold it (for AI_ZEN_CODEX_BIN: `install-hooks codex --trust` runs it). */
export const CODEX_BIN = path.join(installedPackage(pin), '..', '..', '.bin', 'codex');

export interface CodexHome {
  /** HOME for the client (outside /tmp-named helpers it warns about, harmless). */
  readonly home: string;
  /** CODEX_HOME: config.toml, sessions/YYYY/MM/DD/rollout-*.jsonl. */
  readonly codexHome: string;
  readonly sessions: string;
}

export interface CodexHomeOptions {
  readonly baseURL: string;
  /**
   * A model of the client's own catalog gets its window and tools from it (e.g. `gpt-5.5`:
   * 272k, freeform apply_patch); an unknown name gets the fallback (a 258,400-token window, no
   * apply_patch tool).
   */
  readonly model?: string;
  /** More config.toml lines (e.g. `model_auto_compact_token_limit = 50000`). */
  readonly extraConfig?: readonly string[];
}

export const CODEX_API_KEY_ENV = 'AI_ZEN_FAKE_CODEX_KEY';

export async function makeCodexHome(base: string, options: CodexHomeOptions): Promise<CodexHome> {
  const home = path.join(base, 'codex-user');
  const codexHome = path.join(home, '.codex');
  await fs.mkdir(codexHome, { recursive: true });
  const config = [
    `model = ${JSON.stringify(options.model ?? 'gpt-5.5')}`,
    'model_provider = "fake"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    ...(options.extraConfig ?? []),
    '',
    '[model_providers.fake]',
    'name = "fake"',
    `base_url = ${JSON.stringify(options.baseURL)}`,
    `env_key = "${CODEX_API_KEY_ENV}"`,
    'wire_api = "responses"',
    // A failed request is not retried for minutes: the test sees the failure at once.
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ].join('\n');
  await fs.writeFile(path.join(codexHome, 'config.toml'), config);
  return { home, codexHome, sessions: path.join(codexHome, 'sessions') };
}

export interface CodexResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The environment the client runs in: nothing of the developer's own Codex or OpenAI setup. `extra`
 * is for the hooks it runs (e.g. the daemon's AI_ZEN_HOME and XDG_RUNTIME_DIR, where its socket is).
 */
export function codexEnv(home: CodexHome, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = { HOME: home.home, CODEX_HOME: home.codexHome, [CODEX_API_KEY_ENV]: 'fake-key', NO_COLOR: '1' };
  for (const key of ['PATH', 'TMPDIR', 'LANG', 'TZ']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}

export interface CodexRunOptions {
  readonly cwd: string;
  readonly home: CodexHome;
  readonly timeoutMs?: number;
  /** More environment for the client and the hooks it runs. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Runs `codex <args>` in `cwd` to completion; a run past `timeoutMs` is killed and rejects. */
export function runCodex(args: readonly string[], options: CodexRunOptions): Promise<CodexResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CODEX_LAUNCHER, ...args], {
      cwd: options.cwd,
      env: codexEnv(options.home, options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`codex ${args.join(' ')} ran past ${options.timeoutMs ?? 60_000} ms\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
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

/** `codex exec` with a prompt, in `cwd`, no approvals, no sandbox. */
export function codexExec(prompt: string, options: CodexRunOptions): Promise<CodexResult> {
  return runCodex(['exec', '--skip-git-repo-check', prompt], options);
}

/** Every rollout file under the sessions tree. */
export async function listRollouts(home: CodexHome): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.name.startsWith('rollout-') && entry.name.endsWith('.jsonl')) found.push(full);
    }
  };
  await walk(home.sessions);
  return found.sort();
}

/**
 * Stops the app-server daemon an interactive Codex starts for itself in CODEX_HOME (0.171: it
 * outlives the terminal by design, with an updater loop beside it): a test leaves none behind.
 */
export async function stopCodexDaemon(home: CodexHome): Promise<void> {
  await runCodex(['app-server', 'daemon', 'stop'], { cwd: home.home, home, timeoutMs: 30_000 }).catch(() => {});
  // `stop` leaves its hourly updater loop running: every process run from a copy in this CODEX_HOME goes.
  for (const pid of await fs.readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const command = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (command.startsWith(`${home.codexHome}/`)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  }
}
