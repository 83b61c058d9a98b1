// Spawns the built CLI (`dist/cli/ai-zen.js`) as a real process. Run `npm run build` first
// (`npm test` does it through pretest).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'cli', 'ai-zen.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  cwd: string;
  /** Merged over a minimal environment (PATH, HOME); set AI_ZEN_HOME to a temp dir. */
  env?: Record<string, string | undefined>;
  input?: string;
  timeoutMs?: number;
  /** Which bin to run (default ai-zen). */
  bin?: string;
}

/** Runs the CLI to completion; a run past `timeoutMs` is killed and the promise rejects. */
export function runCli(args: readonly string[], options: RunCliOptions): Promise<CliResult> {
  const bin = options.bin ?? CLI_PATH;
  const env: Record<string, string> = {};
  // A minimal environment so a developer's own OPENAI_* settings never leak into a test.
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'SYSTEMROOT']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (data: string) => (stdout += data));
    child.stderr.setEncoding('utf8').on('data', (data: string) => (stderr += data));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`ai-zen ${args.join(' ')} did not finish within ${options.timeoutMs ?? 20_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`),
      );
    }, options.timeoutMs ?? 20_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.on('error', () => {}); // the CLI may exit before reading its input
    child.stdin.end(options.input ?? '');
  });
}
