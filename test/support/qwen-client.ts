// The real Qwen Code CLI (`@qwen-code/qwen-code`, plain JavaScript; its engines ask for Node 22 but
// 0.24.4 runs on Node 20.20, the Node these tests run on — checked: every run below is one), run
// offline: a temp HOME whose `.qwen/settings.json` turns off auto-update, usage statistics,
// telemetry and the background memory agent (each would be a request of its own), the fake
// OpenAI-compatible server (test/support/fake-openai.ts) as OPENAI_BASE_URL with `--auth-type openai`.
// With no model set it runs its default, qwen3.7-max; OPENAI_MODEL pins another.
// Not a dependency of ai-zen: importing this module installs the pinned client into the test
// cache on first use (agent-clients.ts), so a test file that runs it waits for it, or fails saying why.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { agentClientPin, ensureAgentClient, installedPackage } from './agent-clients.js';
import { startTmux, type TmuxSession } from './tmux.js';

const pin = agentClientPin('qwen-code');
await ensureAgentClient(pin);
/** The package's entry (`qwen` on a user's PATH), run with this Node. */
export const QWEN_ENTRY = path.join(installedPackage(pin), 'cli-entry.js');
/** The `qwen` command as a user's PATH holds it. */
export const QWEN_BIN_DIR = path.join(installedPackage(pin), '..', '..', '.bin');

/** What Qwen Code runs with no model set (0.24.4), and its window. */
export const QWEN_DEFAULT_MODEL = 'qwen3.7-max';
export const QWEN_DEFAULT_WINDOW = 1_000_000;

export interface QwenHome {
  readonly home: string;
  /** `~/.qwen`: settings.json, projects/<slug>/chats/<session>.jsonl, sessions/<pid>.json. */
  readonly qwenDir: string;
  /** What the daemon needs to find the same transcripts. */
  readonly env: Record<string, string>;
}

export async function makeQwenHome(base: string): Promise<QwenHome> {
  const home = path.join(base, 'qwen-user');
  const qwenDir = path.join(home, '.qwen');
  await fs.mkdir(qwenDir, { recursive: true });
  const settings = {
    general: { enableAutoUpdate: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false },
  };
  await fs.writeFile(path.join(qwenDir, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  return { home, qwenDir, env: { QWEN_HOME: qwenDir } };
}

export interface QwenResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunQwenOptions {
  readonly cwd: string;
  readonly home: QwenHome;
  readonly baseURL: string;
  /** OPENAI_MODEL; absent: the client's default model. */
  readonly model?: string;
  readonly args?: readonly string[];
  /** More environment (the daemon's AI_ZEN_HOME and XDG_RUNTIME_DIR, for the hooks it runs). */
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}

/** The environment the client runs in: nothing of the developer's own Qwen or OpenAI setup. */
export function qwenEnv(options: Pick<RunQwenOptions, 'home' | 'baseURL' | 'model' | 'env'>): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: options.home.home,
    OPENAI_BASE_URL: options.baseURL,
    OPENAI_API_KEY: 'fake-key',
    NO_COLOR: '1',
    QWEN_DISABLE_AUTO_TITLE: '1',
    QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
    ...(options.model ? { OPENAI_MODEL: options.model } : {}),
  };
  for (const key of ['TMPDIR', 'LANG', 'TZ']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...options.env };
}

/** `qwen "<prompt>"` (one-shot) in `cwd`, tools allowed (--yolo); a run past `timeoutMs` is killed and rejects. */
export function runQwen(prompt: string, options: RunQwenOptions): Promise<QwenResult> {
  const args = [QWEN_ENTRY, '--auth-type', 'openai', '--yolo', ...(options.args ?? []), prompt];
  const timeoutMs = options.timeoutMs ?? 180_000;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: qwenEnv(options), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`qwen ${prompt} ran past ${timeoutMs} ms\n${stderr}`));
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

/** The transcripts Qwen wrote under this home, for every project. */
export async function qwenTranscripts(home: QwenHome): Promise<string[]> {
  const projects = path.join(home.qwenDir, 'projects');
  const files: string[] = [];
  for (const folder of await fs.readdir(projects).catch(() => [] as string[])) {
    const chats = path.join(projects, folder, 'chats');
    for (const name of await fs.readdir(chats).catch(() => [] as string[])) if (name.endsWith('.jsonl')) files.push(path.join(chats, name));
  }
  return files.sort();
}

/**
 * `qwen -i "<prompt>"` at a terminal (a private tmux server, tmux.ts), as a person runs it: the prompt
 * is its first turn and the session stays open (and registered in ~/.qwen/sessions/<pid>.json) until
 * the test ends it. Tools run without asking (--yolo), as in runQwen.
 */
export function startInteractiveQwen(prompt: string, options: RunQwenOptions): Promise<TmuxSession> {
  return startTmux({
    command: [process.execPath, QWEN_ENTRY, '--auth-type', 'openai', '--yolo', ...(options.args ?? []), '-i', prompt],
    cwd: options.cwd,
    env: { ...qwenEnv(options), TERM: 'xterm-256color' },
    width: 140,
    height: 50,
  });
}
