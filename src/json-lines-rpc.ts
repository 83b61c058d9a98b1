// A JSON-RPC client over a child's stdin/stdout, one JSON object per line and no `jsonrpc` field
// (Codex's app-server speaks it; the MCP SDK's transport requires `jsonrpc: "2.0"`, and
// vscode-jsonrpc frames with Content-Length headers). Every call fails at once, with the child's
// last stderr line, when the child ends, cannot start or misses the deadline.
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Env } from './paths.js';
import { startPipedProcess } from './run-process.js';

export interface JsonLinesRpc {
  call(method: string, params: unknown): Promise<unknown>;
  notify(method: string): void;
  close(): void;
}

export interface JsonLinesRpcOptions {
  readonly cwd: string;
  readonly env: Env;
  /** The whole conversation's deadline. */
  readonly timeoutMs: number;
  /** What to say when the program is not installed. */
  readonly notFound: string;
}

export function startJsonLinesRpc(program: string, args: readonly string[], options: JsonLinesRpcOptions): JsonLinesRpc {
  const name = [path.basename(program), ...args].join(' ');
  const child = startPipedProcess(program, args, { cwd: options.cwd, env: options.env });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let failure: Error | null = null;
  const failAll = (error: Error) => {
    failure ??= error;
    for (const waiter of pending.values()) waiter.reject(failure);
    pending.clear();
  };
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-2000);
  });
  child.on('error', (error: NodeJS.ErrnoException) =>
    failAll(new Error(error.code === 'ENOENT' ? options.notFound : `${name}: ${error.message}`)),
  );
  child.on('exit', (code, signal) => {
    const last =
      stderr
        .split('\n')
        .findLast((line) => line.trim() !== '')
        ?.trim() ?? 'no output';
    failAll(new Error(`${name} ended (${signal ?? code}): ${last}`));
  });
  child.stdin.on('error', () => {});
  createInterface({ input: child.stdout }).on('line', (line) => {
    let message: { id?: unknown; result?: unknown; error?: { message?: string } };
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof message.id !== 'number') return;
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(`${name}: ${message.error.message ?? 'error'}`));
    else waiter.resolve(message.result);
  });
  const timer = setTimeout(() => failAll(new Error(`${name} did not answer in time`)), options.timeoutMs);
  let next = 0;
  return {
    call(method, params) {
      if (failure) return Promise.reject(failure);
      const id = (next += 1);
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
      });
    },
    notify(method) {
      child.stdin.write(`${JSON.stringify({ method })}\n`);
    },
    close() {
      clearTimeout(timer);
      child.stdin.end();
      child.kill();
    },
  };
}
