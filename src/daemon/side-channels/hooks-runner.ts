// User hooks on pipeline events: executables in `.ai-zen/hooks/` named after the event, given the
// event as JSON on stdin, run in the project root with a timeout. A hook is the user's own code
// and may misbehave in every way; the runner never throws, it reports (the gemini-cli runner shape).
import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { AnyEvent, EventName } from '../../events.js';
import { projectPaths, type Env } from '../../paths.js';
import { runProcess } from '../../run-process.js';

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

  async function execute(file: string, hook: HookName, event: AnyEvent): Promise<[HookStatus, Partial<HookResult>]> {
    const input: HookInput = { v: 1, hook, event: event.name, root, payload: event.payload };
    const result = await runProcess(file, [], {
      cwd: root,
      env: { ...(options.env ?? process.env), AI_ZEN_HOOK: hook, AI_ZEN_EVENT: event.name, AI_ZEN_ROOT: root },
      input: `${JSON.stringify(input)}\n`,
      // Its own process group, so a timeout ends the hook and everything it started.
      processGroup: true,
      timeoutMs,
      killGraceMs: KILL_GRACE_MS,
      drainMs: DRAIN_MS,
      maxBuffer: outputLimit,
    });
    const output = result.droppedBytes > 0 ? `${result.output}\n[… ${result.droppedBytes} more bytes of output not kept]` : result.output;
    if (result.startError) return ['error', { error: `could not run ${file}: ${result.startError.message}`, output }];
    const rest = { exitCode: result.exitCode, signal: result.signal, output };
    if (result.stopped === 'timeout') return ['timeout', { ...rest, error: `timed out after ${timeoutMs} ms` }];
    if (result.exitCode === 0) return ['ok', rest];
    return ['failed', { ...rest, error: result.exitCode === null ? `killed by ${result.signal}` : `exited with code ${result.exitCode}` }];
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
