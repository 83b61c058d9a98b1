// Spawns fixtures/session-owner.mjs: a real process that owns a session (holds its lock).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'session-owner.mjs');

export interface SessionOwner {
  readonly id: string;
  readonly file: string;
  readonly child: ChildProcess;
  /** Appends a usage line with this prompt_tokens and waits until it is on disk. */
  usage(promptTokens: number): Promise<void>;
  message(text: string): Promise<void>;
  /** kill -9, and wait for the exit. */
  kill(): Promise<void>;
}

export type OwnerStart = { ok: true; owner: SessionOwner } | { ok: false; error: string };

/** `env` is the daemon's (AI_ZEN_HOME above all): the session lock lives in that home's private run folder. */
export async function startSessionOwner(
  root: string,
  how: { create: number } | { open: string },
  env: Record<string, string> = {},
): Promise<OwnerStart> {
  const args = 'create' in how ? ['create', String(how.create)] : ['open', how.open];
  const child = spawn(process.execPath, [script, root, ...args], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the session owner exited');
    return value as string;
  };
  const first = JSON.parse(await next()) as { id?: string; file?: string; error?: string };
  if (first.error !== undefined) return { ok: false, error: first.error };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const command = async (value: object): Promise<void> => {
    child.stdin!.write(`${JSON.stringify(value)}\n`);
    const answer = await next();
    if (answer !== 'ok') throw new Error(`session owner answered ${answer}`);
  };
  return {
    ok: true,
    owner: {
      id: first.id!,
      file: first.file!,
      child,
      usage: (promptTokens) => command({ usage: promptTokens }),
      message: (text) => command({ message: text }),
      async kill() {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await exited;
      },
    },
  };
}
