// Runs `ai-zen` or `ai-zen-daemon` in this process (runAiZen, runAiZenDaemon) with in-memory streams:
// the same arguments, environment and result as run-cli.ts, without a node start-up per command.
// For what only a process shows (the bundle, the exit of a process, a terminal) use run-cli.ts.
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { runAiZen } from '../../src/cli/ai-zen/program.js';
import { runAiZenDaemon } from '../../src/cli/daemon/program.js';
import type { CliIo } from '../../src/cli/shared/run-cli.js';
import type { CliResult, RunCliOptions } from './run-cli.js';

export type { CliResult };

/** Collects what a command writes. */
function collector(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** The environment run-cli.ts gives the process: a minimal one (PATH, HOME, …) with `options.env` over it. */
function environment(overrides: RunCliOptions['env']): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'SYSTEMROOT']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  for (const [key, value] of Object.entries(overrides ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** Runs the command to its end; `bin` names the binary as run-cli.ts does (default ai-zen). */
export async function runCli(args: readonly string[], options: RunCliOptions): Promise<CliResult> {
  const bin = path.basename(options.bin ?? 'ai-zen.js', '.js');
  const run = bin === 'ai-zen' ? runAiZen : bin === 'ai-zen-daemon' ? runAiZenDaemon : null;
  if (run === null) throw new Error(`${bin} is not a binary that runs in-process (ai-zen, ai-zen-daemon)`);
  const stdin = new PassThrough();
  stdin.end(options.input ?? '');
  const stdout = collector();
  const stderr = collector();
  const io: CliIo = { cwd: options.cwd, env: environment(options.env), stdin, stdout: stdout.stream, stderr: stderr.stream };
  const timeoutMs = options.timeoutMs ?? 20_000;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`${bin} ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout: ${stdout.text()}\nstderr: ${stderr.text()}`),
        ),
      timeoutMs,
    );
  });
  try {
    const code = await Promise.race([run(args, io), timedOut]);
    return { code, signal: null, stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    clearTimeout(timer);
  }
}
