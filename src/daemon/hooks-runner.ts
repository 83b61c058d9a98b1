// User hooks on pipeline events: executables in `.ai-zen/hooks/` named after the event, given the
// event as JSON on stdin, run in the project root with a timeout. A hook is the user's own code
// and may misbehave in every way; the runner never throws, it reports (the gemini-cli runner shape).
import { spawn } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { AnyEvent, EventName } from '../events.js';
import { projectPaths, type Env } from '../paths.js';

export const HOOK_NAMES = ['on-overflow', 'on-before-handoff', 'on-handoff', 'on-migrated', 'on-commit'] as const;
export type HookName = (typeof HOOK_NAMES)[number];

/** Which hook each catalogue event runs; events not listed run none. */
export const HOOK_FOR_EVENT: Readonly<Partial<Record<EventName, HookName>>> = {
  'session.overflowed': 'on-overflow',
  'handoff.started': 'on-before-handoff',
  'handoff.written': 'on-handoff',
  'session.migrated': 'on-migrated',
  'handoff.committed': 'on-commit',
};

export type HookStatus = 'ok' | 'missing' | 'refused' | 'untrusted' | 'failed' | 'timeout' | 'error';

export interface HookResult {
  readonly hook: HookName;
  readonly status: HookStatus;
  readonly success: boolean;
  /** null when it did not run, or was ended by a signal. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** stdout and stderr interleaved, capped at outputLimit bytes. */
  readonly output: string;
  readonly error: string | null;
  readonly durationMs: number;
}

/** What a hook reads on stdin (one JSON object), documented in hooks/README.md. */
export interface HookInput {
  readonly v: 1;
  readonly hook: HookName;
  readonly event: EventName;
  readonly root: string;
  readonly payload: unknown;
}

export interface HooksRunnerOptions {
  /** The project root (real path); hooks run there. */
  readonly root: string;
  /** Default `<root>/.ai-zen/hooks`. */
  readonly hooksDir?: string;
  readonly logger: Logger;
  /** Default 30 s; then the hook's whole process group gets SIGTERM, and SIGKILL a second later. */
  readonly timeoutMs?: number;
  /** Default 64 KiB of captured output. */
  readonly outputLimit?: number;
  /** Base environment of the hook (default process.env), plus AI_ZEN_HOOK, AI_ZEN_EVENT, AI_ZEN_ROOT. */
  readonly env?: Env;
  /** Monotonic milliseconds, for durationMs. */
  readonly now?: () => number;
  /**
   * T4: asked before every hook (so a hook changed after `trust` stops running at once); null
   * means hooks may run, a string says why not. Default: always allowed.
   */
  readonly refusal?: () => Promise<string | null>;
}

export interface HooksRunner {
  /** Runs the hook mapped to this event; null when no hook is mapped to it. */
  runForEvent(event: AnyEvent): Promise<HookResult | null>;
  run(hook: HookName, event: AnyEvent): Promise<HookResult>;
}

const KILL_GRACE_MS = 1000;
/** After the hook exits, how long its output pipes may stay open (a background child holding them). */
const DRAIN_MS = 1000;

export function createHooksRunner(options: HooksRunnerOptions): HooksRunner {
  const { root, logger } = options;
  const hooksDir = options.hooksDir ?? projectPaths(root).hooks;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const outputLimit = options.outputLimit ?? 64 * 1024;
  const now = options.now ?? (() => performance.now());

  async function run(hook: HookName, event: AnyEvent): Promise<HookResult> {
    const started = now();
    const file = path.join(hooksDir, hook);
    const done = (status: HookStatus, rest: Partial<HookResult> = {}): HookResult => ({
      hook,
      status,
      success: status === 'ok',
      exitCode: null,
      signal: null,
      output: '',
      error: null,
      durationMs: Math.max(0, now() - started),
      ...rest,
    });
    let result: HookResult;
    try {
      const problem = await checkHook(file);
      const untrusted = problem === 'missing' ? null : ((await options.refusal?.()) ?? null);
      if (problem === 'missing') result = done('missing', { error: `no hook at ${file}` });
      else if (untrusted !== null) result = done('untrusted', { error: untrusted });
      else if (problem) result = done('refused', { error: problem });
      else result = done(...(await execute(file, hook, event)));
    } catch (error) {
      result = done('error', { error: error instanceof Error ? error.message : String(error) });
    }
    report(result, event);
    return result;
  }

  function execute(file: string, hook: HookName, event: AnyEvent): Promise<[HookStatus, Partial<HookResult>]> {
    return new Promise((resolve) => {
      const input: HookInput = { v: 1, hook, event: event.name, root, payload: event.payload };
      const child = spawn(file, [], {
        cwd: root,
        // Its own process group, so a timeout ends the hook and everything it started.
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...(options.env ?? process.env), AI_ZEN_HOOK: hook, AI_ZEN_EVENT: event.name, AI_ZEN_ROOT: root },
      });
      const output = new CappedOutput(outputLimit);
      child.stdout.on('data', (chunk: Buffer) => output.add(chunk));
      child.stderr.on('data', (chunk: Buffer) => output.add(chunk));
      // A hook that ignores stdin and exits early makes this write fail with EPIPE: not an error.
      child.stdin.on('error', () => {});
      child.stdin.end(JSON.stringify(input) + '\n');

      let timedOut = false;
      const killGroup = (signal: NodeJS.Signals) => {
        try {
          if (child.pid) process.kill(-child.pid, signal);
        } catch {
          // the group is already gone
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup('SIGTERM');
        setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS).unref();
      }, timeoutMs);

      let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
      const finish = () => {
        clearTimeout(timer);
        child.stdout.destroy();
        child.stderr.destroy();
        const { code, signal } = exit ?? { code: null, signal: null };
        const rest = { exitCode: code, signal, output: output.text() };
        if (timedOut) resolve(['timeout', { ...rest, error: `timed out after ${timeoutMs} ms` }]);
        else if (code === 0) resolve(['ok', rest]);
        else resolve(['failed', { ...rest, error: code === null ? `killed by ${signal}` : `exited with code ${code}` }]);
      };
      child.once('error', (error) => {
        clearTimeout(timer);
        resolve(['error', { error: `could not run ${file}: ${error.message}`, output: output.text() }]);
      });
      child.once('exit', (code, signal) => {
        exit = { code, signal };
        const drain = setTimeout(finish, DRAIN_MS);
        child.once('close', () => {
          clearTimeout(drain);
          finish();
        });
      });
    });
  }

  function report(result: HookResult, event: AnyEvent): void {
    const fields = {
      hook: result.hook,
      event: event.name,
      status: result.status,
      exitCode: result.exitCode,
      durationMs: Math.round(result.durationMs),
      output: result.output,
    };
    if (result.status === 'missing') logger.debug(fields, 'no hook for event');
    else if (result.status === 'untrusted') logger.warn({ ...fields, error: result.error }, 'hook not run: the repo is not trusted');
    else if (result.success) logger.info(fields, 'hook finished');
    else logger.warn({ ...fields, error: result.error }, 'hook failed');
  }

  return {
    run,
    async runForEvent(event) {
      const hook = HOOK_FOR_EVENT[event.name];
      return hook ? run(hook, event) : null;
    },
  };
}

/** null when the hook may run; 'missing'; or why it is refused. */
async function checkHook(file: string): Promise<string | null> {
  let stat;
  try {
    stat = await fs.stat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  if (!stat.isFile()) return `${file} is not a regular file`;
  // Like ssh with its keys: a hook that others could have written is not run with our rights.
  if (stat.mode & 0o022) return `${file} is writable by group or others; chmod go-w it to let it run`;
  const uid = typeof process.getuid === 'function' ? process.getuid() : -1;
  if (uid >= 0 && stat.uid !== uid && stat.uid !== 0) return `${file} belongs to uid ${stat.uid}, not to you`;
  try {
    await fs.access(file, fsConstants.X_OK);
  } catch {
    return `${file} is not executable; chmod +x it to let it run`;
  }
  return null;
}

class CappedOutput {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private dropped = 0;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    const room = this.limit - this.bytes;
    if (room <= 0) {
      this.dropped += chunk.length;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(Buffer.from(kept));
    this.bytes += kept.length;
    this.dropped += chunk.length - kept.length;
  }

  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8');
    return this.dropped > 0 ? `${text}\n[… ${this.dropped} more bytes of output not kept]` : text;
  }
}
