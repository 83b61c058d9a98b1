// The real opencode (`opencode-ai`, a compiled Bun binary) or Kilo Code (`@kilocode/cli`, opencode
// under its own name and folders), run offline: a temp HOME whose XDG folders hold all it writes (its
// database under XDG_DATA_HOME), a global config naming one `@ai-sdk/openai-compatible` provider
// pointed at the fake OpenAI server (test/support/fake-openai.ts) with the model's window
// (`limit.context`), no models.dev fetch, no self-update — and the npm registry at a closed port, not
// retried: the client installs its plugin package from npm into each config folder (its own, and a
// project's `.<app>/` that names a plugin), and offline that install fails at once and it goes on
// without it. opencode-client.ts and kilo-client.ts install each pinned binary and name it here.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { FakeOpenAI } from './fake-openai.js';
import { reply } from './fake-openai.js';

/** The provider and model the config names (`provider/model`): what the daemon reports as the model. */
export const FAKE_MODEL = 'fake/fake-model';

/**
 * The client: its name (its folders, config and database are named after it), its binary, and what
 * differs between the two where tests of both run one body (test/daemon/opencode-like-*.test.ts).
 */
export interface OpencodeLikeClient {
  readonly app: 'opencode' | 'kilo';
  /** Its name in a test's words. */
  readonly name: 'opencode' | 'Kilo Code';
  readonly bin: string;
  /** How long one `run` may take, by default: Kilo's costs ~8 s of CPU to opencode's ~3.5 s (measured here). */
  readonly runTimeoutMs: number;
  /** How long one of its tests may take: a few turns, each as heavy as a `run`. */
  readonly testTimeoutMs: number;
  /** What a person typed, from the text of the prompt the client sends the model for it. */
  readonly typedIn: (promptText: string) => string;
}

export interface OpencodeHome {
  readonly client: OpencodeLikeClient;
  readonly home: string;
  /** XDG_DATA_HOME, XDG_CONFIG_HOME: where its database and its config are (the daemon is given the same). */
  readonly dataHome: string;
  readonly configHome: string;
  /** `<data>/<app>/<app>.db` */
  readonly database: string;
}

export async function makeClientHome(
  client: OpencodeLikeClient,
  base: string,
  options: { readonly baseURL: string; readonly context: number; readonly output?: number },
): Promise<OpencodeHome> {
  const { app } = client;
  const home = path.join(base, `${app}-user`);
  const dataHome = path.join(home, '.local', 'share');
  const configHome = path.join(home, '.config');
  await fs.mkdir(path.join(configHome, app), { recursive: true });
  const config = {
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake',
        options: { baseURL: options.baseURL, apiKey: 'fake-key', includeUsage: true },
        models: { 'fake-model': { name: 'Fake', limit: { context: options.context, output: options.output ?? 4096 } } },
      },
    },
    model: FAKE_MODEL,
    autoupdate: false,
    share: 'disabled',
  };
  await fs.writeFile(path.join(configHome, app, `${app}.json`), JSON.stringify(config, null, 2));
  return { client, home, dataHome, configHome, database: path.join(dataHome, app, `${app}.db`) };
}

export function clientEnv(home: OpencodeHome, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {
    HOME: home.home,
    XDG_DATA_HOME: home.dataHome,
    XDG_CONFIG_HOME: home.configHome,
    XDG_CACHE_HOME: path.join(home.home, '.cache'),
    XDG_STATE_HOME: path.join(home.home, '.local', 'state'),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    // Kilo reads its own names for the same switches, and would send its sessions to its cloud.
    KILO_DISABLE_MODELS_FETCH: '1',
    KILO_DISABLE_AUTOUPDATE: '1',
    KILO_DISABLE_SESSION_INGEST: '1',
    KILO_DISABLE_SHARE: '1',
    // Less work offline: no telemetry (its shutdown waits 2 s for a server it cannot reach), no code index.
    KILO_TELEMETRY_LEVEL: 'off',
    KILO_DISABLE_CODEBASE_INDEXING: '1',
    npm_config_registry: 'http://127.0.0.1:9/',
    // Not retried: npm's default retries back off for over a minute when a project has a plugin.
    npm_config_fetch_retries: '0',
    NO_COLOR: '1',
  };
  for (const key of ['PATH', 'TMPDIR', 'LANG', 'TZ']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}

/** The client asks the model for a title beside the turn: answered apart, so the queue holds the turn's replies only. */
export function answerTitles(fake: FakeOpenAI): () => void {
  return fake.handle((request) =>
    JSON.stringify(request.messages[0] ?? '').includes('title generator') ? reply().text('A title') : undefined,
  );
}

export interface OpencodeResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `<app> run <prompt>` in `cwd` to completion; past `timeoutMs` it is killed and this rejects. */
export function runClient(
  prompt: string,
  options: {
    readonly cwd: string;
    readonly home: OpencodeHome;
    readonly timeoutMs?: number;
    readonly args?: readonly string[];
    /** More of the client's environment: a hook's way to the daemon (AI_ZEN_HOME, XDG_RUNTIME_DIR). */
    readonly env?: Readonly<Record<string, string>>;
  },
): Promise<OpencodeResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.home.client.bin, ['run', ...(options.args ?? []), prompt], {
      cwd: options.cwd,
      env: clientEnv(options.home, options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timeoutMs = options.timeoutMs ?? options.home.client.runTimeoutMs;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.home.client.app} run ran past ${timeoutMs} ms\n${stderr}`));
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

export interface OpencodeServer {
  readonly url: string;
  /** A new session of the server's folder. */
  newSession(): Promise<string>;
  /** Sends a prompt to the session as a person does in the TUI; resolves once the client took it. */
  prompt(sessionId: string, text: string): Promise<void>;
  /** The texts of the session's messages, as the client keeps them. */
  texts(sessionId: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * `<app> serve` in `cwd`: the server the client's TUI talks to, driven over its HTTP API as the TUI
 * drives it. Not a script's run (`<app> run`): a hook's answer goes back to the session.
 */
export async function startClientServer(options: {
  readonly cwd: string;
  readonly home: OpencodeHome;
  readonly env?: Readonly<Record<string, string>>;
}): Promise<OpencodeServer> {
  const { app, bin } = options.home.client;
  const child = spawn(bin, ['serve', '--port', '0', '--hostname', '127.0.0.1'], {
    cwd: options.cwd,
    env: clientEnv(options.home, options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${app} serve did not listen within 60 s\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${app} serve exited ${code}\n${output}`));
    });
  });
  const post = async (route: string, body: object) => {
    const response = await fetch(`${url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${app} serve: POST ${route} answered ${response.status}: ${await response.text()}`);
    return response;
  };
  return {
    url,
    newSession: async () => ((await (await post('/session', {})).json()) as { id: string }).id,
    prompt: async (sessionId, text) => {
      await post(`/session/${sessionId}/prompt_async`, { parts: [{ type: 'text', text }] });
    },
    texts: async (sessionId) => {
      const response = await fetch(`${url}/session/${sessionId}/message`);
      const messages = (await response.json()) as { parts: { type: string; text?: string }[] }[];
      return messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'text' && part.text ? [part.text] : [])));
    },
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
