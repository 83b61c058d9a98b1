// The real Gemini CLI (`@google/gemini-cli`, a bundled Node program), run offline: GEMINI_CLI_HOME
// (the client's own override of its home: `~/.gemini` under it) in a temp folder, the fake Gemini
// server (test/support/fake-gemini.ts) as GOOGLE_GEMINI_BASE_URL with an API key of nothing. What
// the client needs besides (found with 0.61): `security.auth.selectedType: "gemini-api-key"` in its
// settings (a base URL alone makes it pick the "gateway" auth, which `-p` refuses as "Invalid auth
// method selected"), a trusted workspace (GEMINI_CLI_TRUST_WORKSPACE, else `-p` exits 55), usage
// statistics and auto-update off (no traffic but the fake's).
// Not a dependency of ai-zen: importing this module installs the pinned client into the test
// cache on first use (agent-clients.ts), so a test file that runs it waits for it, or fails saying why.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { agentClientPin, ensureAgentClient } from './agent-clients.js';

export const GEMINI_BIN = path.join(await ensureAgentClient(agentClientPin('gemini')), 'node_modules', '.bin', 'gemini');

export interface GeminiHome {
  /** GEMINI_CLI_HOME: `.gemini/` is inside (settings.json, projects.json, tmp/<project>/chats/session-*.jsonl). */
  readonly home: string;
  readonly geminiDir: string;
  /** What the daemon and the client must agree on (where the transcripts are). */
  readonly env: Record<string, string>;
}

export async function makeGeminiHome(base: string): Promise<GeminiHome> {
  const home = path.join(base, 'gemini-user');
  const geminiDir = path.join(home, '.gemini');
  await fs.mkdir(geminiDir, { recursive: true });
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  };
  await fs.writeFile(path.join(geminiDir, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  return { home, geminiDir, env: { GEMINI_CLI_HOME: home } };
}

export interface GeminiResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface GeminiRunOptions {
  readonly cwd: string;
  readonly home: GeminiHome;
  readonly baseURL: string;
  readonly timeoutMs?: number;
  /** More environment for the client and the hooks it runs (the daemon's AI_ZEN_HOME, XDG_RUNTIME_DIR). */
  readonly env?: Readonly<Record<string, string>>;
}

/** Nothing of the developer's own Gemini or Google setup. */
export function geminiEnv(options: GeminiRunOptions): Record<string, string> {
  const env: Record<string, string> = {
    HOME: options.home.home,
    ...options.home.env,
    GEMINI_API_KEY: 'fake-key',
    GOOGLE_GEMINI_BASE_URL: options.baseURL,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    NO_COLOR: '1',
  };
  for (const key of ['PATH', 'TMPDIR', 'LANG', 'TZ']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...options.env };
}

/** Runs `gemini <args>` in `cwd` to completion (stdin closed); a run past `timeoutMs` is killed and rejects. */
export function runGemini(args: readonly string[], options: GeminiRunOptions): Promise<GeminiResult> {
  const timeoutMs = options.timeoutMs ?? 90_000;
  return new Promise((resolve, reject) => {
    const child = spawn(GEMINI_BIN, [...args], { cwd: options.cwd, env: geminiEnv(options), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gemini ${args.join(' ')} ran past ${timeoutMs} ms\n${stderr}`));
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

/** `gemini -p <prompt>` (headless), tools approved (`--yolo`: its write and shell tools run), `-m` when a model is pinned. */
export function geminiPrompt(prompt: string, options: GeminiRunOptions & { readonly model?: string }): Promise<GeminiResult> {
  return runGemini([...(options.model ? ['-m', options.model] : []), '--yolo', '-p', prompt], options);
}

/** Every main-session transcript the client wrote (`tmp/<project>/chats/session-*.jsonl`). */
export async function listGeminiSessions(home: GeminiHome): Promise<string[]> {
  const tmp = path.join(home.geminiDir, 'tmp');
  const found: string[] = [];
  for (const project of await fs.readdir(tmp).catch(() => [] as string[])) {
    const chats = path.join(tmp, project, 'chats');
    for (const name of await fs.readdir(chats).catch(() => [] as string[]))
      if (/^session-.+\.jsonl$/.test(name)) found.push(path.join(chats, name));
  }
  return found.sort();
}
