// The real Claude Code CLI (`@anthropic-ai/claude-code`, a native binary in the npm package), run
// offline: a temp HOME and CLAUDE_CONFIG_DIR, the fake Anthropic server
// (test/support/fake-anthropic.ts) as ANTHROPIC_BASE_URL, telemetry, updates and other traffic off.
// Tools are allowed by name (`--allowedTools`): as root, skipping permissions is refused.
// Not a dependency of ai-zen: importing this module installs the pinned client into the test
// cache on first use (agent-clients.ts), so a test file that runs it waits for it, or fails saying why.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { agentClientPin, ensureAgentClient } from './agent-clients.js';

export const CLAUDE_BIN = path.join(await ensureAgentClient(agentClientPin('claude-code')), 'node_modules', '.bin', 'claude');

export interface ClaudeHome {
  readonly home: string;
  /** CLAUDE_CONFIG_DIR: projects/<slug>/<session>.jsonl, sessions/<pid>.json. */
  readonly configDir: string;
  /** What both the daemon and the client need to agree on where transcripts are. */
  readonly env: Record<string, string>;
}

export async function makeClaudeHome(base: string): Promise<ClaudeHome> {
  const home = path.join(base, 'claude-user');
  const configDir = path.join(home, '.claude');
  await fs.mkdir(configDir, { recursive: true });
  return { home, configDir, env: { CLAUDE_CONFIG_DIR: configDir } };
}

export interface ClaudeResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunClaudeOptions {
  readonly cwd: string;
  readonly home: ClaudeHome;
  readonly baseURL: string;
  readonly args?: readonly string[];
  readonly env?: Record<string, string>;
  readonly timeoutMs?: number;
  /** Tools allowed without asking (default Bash, Write, Edit). */
  readonly allowedTools?: readonly string[];
}

export function runClaude(prompt: string, options: RunClaudeOptions): Promise<ClaudeResult> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: options.home.home,
    ...options.home.env,
    ANTHROPIC_BASE_URL: options.baseURL,
    ANTHROPIC_API_KEY: 'test',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...options.env,
  };
  const args = ['-p', prompt, '--allowedTools', ...(options.allowedTools ?? ['Bash', 'Write', 'Edit']), ...(options.args ?? [])];
  return new Promise((resolve, reject) => {
    const child = spawn(CLAUDE_BIN, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The transcripts Claude wrote under this home, for every project. */
export async function claudeTranscripts(home: ClaudeHome): Promise<string[]> {
  const projects = path.join(home.configDir, 'projects');
  const folders = await fs.readdir(projects).catch(() => [] as string[]);
  const files: string[] = [];
  for (const folder of folders) {
    for (const name of await fs.readdir(path.join(projects, folder)).catch(() => [] as string[])) {
      if (name.endsWith('.jsonl')) files.push(path.join(projects, folder, name));
    }
  }
  return files;
}
