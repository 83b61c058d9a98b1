// The real GitHub Copilot CLI (`@github/copilot`, a native binary in the npm package), run offline:
// COPILOT_OFFLINE=true and its own BYOK provider (COPILOT_PROVIDER_BASE_URL, _TYPE) pointed at a
// fake server of the test suite (fake-anthropic.ts or fake-openai.ts), in a temp HOME and
// COPILOT_HOME. Not a dependency of ai-zen: importing this module installs the pinned client into
// the test cache on first use (agent-clients.ts).
//
// The binary unpacks its JavaScript (~235 MB) into `$XDG_CACHE_HOME/copilot/pkg` on its first run:
// one shared cache beside the installed client, not one per temp HOME.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { agentClientPin, clientFolder, ensureAgentClient, installedPackage } from './agent-clients.js';
import { startTmux, type TmuxSession } from './tmux.js';

const pin = agentClientPin('copilot');
await ensureAgentClient(pin);
/** The `copilot` command as a user's PATH would hold it (the package's launcher, which finds the native binary). */
export const COPILOT_BIN = path.join(installedPackage(pin), '..', '..', '.bin', 'copilot');
const UNPACK_CACHE = `${clientFolder(pin)}-cache`;

/**
 * The client's default model is GitHub's choice, and offline (BYOK) it refuses to run without one
 * ("BYOK providers require an explicit model"): its README names Claude Sonnet 4.5 as the default,
 * which the tests run over its Anthropic provider; the pinned model is gpt-5.4 over OpenAI's.
 */
export const DEFAULT_MODEL = 'claude-sonnet-4.5';
export const PINNED_MODEL = 'gpt-5.4';

export interface CopilotHome {
  readonly home: string;
  /** COPILOT_HOME: settings, session-state/<id>/events.jsonl. */
  readonly copilotHome: string;
  readonly sessionState: string;
}

export async function makeCopilotHome(base: string): Promise<CopilotHome> {
  const home = path.join(base, 'copilot-user');
  const copilotHome = path.join(home, '.copilot');
  await fs.mkdir(copilotHome, { recursive: true });
  return { home, copilotHome, sessionState: path.join(copilotHome, 'session-state') };
}

export interface CopilotProvider {
  readonly type: 'anthropic' | 'openai';
  readonly baseURL: string;
  readonly model: string;
}

export interface CopilotRunOptions {
  readonly cwd: string;
  readonly home: CopilotHome;
  readonly provider: CopilotProvider;
  readonly timeoutMs?: number;
  /** More environment for the client and the hooks it runs. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface CopilotResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Nothing of the developer's own Copilot or GitHub setup: offline, the fake provider, a temp home. */
export function copilotEnv(options: Pick<CopilotRunOptions, 'home' | 'provider' | 'env'>): Record<string, string> {
  const env: Record<string, string> = {
    HOME: options.home.home,
    COPILOT_HOME: options.home.copilotHome,
    XDG_CACHE_HOME: UNPACK_CACHE,
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_PROVIDER_TYPE: options.provider.type,
    COPILOT_PROVIDER_BASE_URL: options.provider.baseURL,
    COPILOT_PROVIDER_API_KEY: 'fake-key',
    COPILOT_MODEL: options.provider.model,
    NO_COLOR: '1',
  };
  for (const key of ['PATH', 'TMPDIR', 'LANG', 'TZ']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...options.env };
}

/** Runs `copilot <args>` in `cwd` to completion; a run past `timeoutMs` is killed and rejects. */
export function runCopilot(args: readonly string[], options: CopilotRunOptions): Promise<CopilotResult> {
  const timeoutMs = options.timeoutMs ?? 90_000;
  return new Promise((resolve, reject) => {
    const child = spawn(COPILOT_BIN, [...args], { cwd: options.cwd, env: copilotEnv(options), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`copilot ${args.join(' ')} ran past ${timeoutMs} ms\n${stdout}\n${stderr}`));
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

/** `copilot -p <prompt>` with every tool allowed (a script's run); `--trust-folder` loads the repo's hooks. */
export function copilotPrompt(
  prompt: string,
  options: CopilotRunOptions & { readonly trustFolder?: boolean; readonly resume?: string },
): Promise<CopilotResult> {
  return runCopilot(
    [
      ...(options.resume ? [`--resume=${options.resume}`] : []),
      '-p',
      prompt,
      '--allow-all-tools',
      ...(options.trustFolder ? ['--trust-folder'] : []),
    ],
    options,
  );
}

/** Every session's transcript under session-state. */
export async function listCopilotTranscripts(home: CopilotHome): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(home.sessionState);
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const name of names) {
    const file = path.join(home.sessionState, name, 'events.jsonl');
    if (
      await fs.stat(file).then(
        () => true,
        () => false,
      )
    )
      files.push(file);
  }
  return files.sort();
}

/**
 * `copilot -i <prompt>` at a terminal (a private tmux server), as a person runs it: an interactive
 * session, not a script's. COPILOT_ALLOW_ALL=true allows every tool and trusts the folder (so its
 * hooks run) without the first-run questions.
 */
export async function startInteractiveCopilot(prompt: string, options: Omit<CopilotRunOptions, 'timeoutMs'>): Promise<TmuxSession> {
  // The folder trusted beforehand, as its first-run question would leave it: only then are the repo's hooks loaded.
  await fs.writeFile(path.join(options.home.copilotHome, 'settings.json'), JSON.stringify({ trustedFolders: [options.cwd] }));
  return startTmux({
    command: [COPILOT_BIN, '-i', prompt],
    cwd: options.cwd,
    env: { ...copilotEnv(options), COPILOT_ALLOW_ALL: 'true', TERM: 'xterm-256color' },
    width: 160,
    height: 50,
  });
}
