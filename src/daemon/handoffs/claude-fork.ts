// The fork executor of an idle Claude Code session: `claude -p --resume <id> --fork-session` writes
// the document on the session's warm cached prefix (about a tenth of a cold re-write's input cost).
// The fork gets its own session id (its transcript lands beside the original, which is never
// written), runs in its own process group so a timeout or the daemon's stop kills all of it, and
// carries AI_ZEN_FORK=1 so ai-zen's own hooks answer nothing in it.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { PricedUsage } from '../../config/model-prices.js';
import type { Env } from '../../paths.js';
import { runProcess } from '../../run-process.js';

/** Set in the fork's environment: ai-zen's hooks run in it answer nothing (the fork is ai-zen's own work). */
export const FORK_MARKER = 'AI_ZEN_FORK';

export interface ForkRequest {
  /** The `claude` to run (default: the one on PATH). */
  readonly command: string;
  readonly sessionId: string;
  /** The original transcript: the fork's is written beside it. */
  readonly transcript: string;
  readonly cwd: string;
  /** The session's model; null: the client's own default. */
  readonly model: string | null;
  readonly prompt: string;
  /** The one file the fork may write: the document. */
  readonly document: string;
  readonly env: Env;
  readonly timeoutMs: number;
  /** Aborted when the daemon stops: the fork's process group is killed. */
  readonly signal?: AbortSignal;
}

export type ForkOutcome =
  | { readonly ok: true; readonly usage: PricedUsage; readonly model: string | null }
  | { readonly ok: false; readonly reason: string; readonly usage: PricedUsage | null };

/** Where the fork of `transcript` with session id `forkId` writes its own transcript. */
export function forkTranscriptPath(transcript: string, forkId: string): string {
  return path.join(path.dirname(transcript), `${forkId}.jsonl`);
}

export const newForkId = (): string => randomUUID();

/**
 * Claude Code's permission rules for the fork: `//` starts an absolute path, and an `Edit` rule is
 * what its Write tool is checked against (Claude Code 2.1.332). The characters a
 * gitignore pattern reads as wildcards are escaped, so the rule names exactly this document.
 */
export function forkPermissions(repo: string, document: string): [string, string] {
  const absolute = (file: string) => `/${path.resolve(file).replace(/[\\*?[\]]/g, '\\$&')}`;
  return [`Read(${absolute(repo)}/**)`, `Edit(${absolute(document)})`];
}

/** Runs the fork to its end; never throws. */
export async function runClaudeFork(request: ForkRequest, forkId: string): Promise<ForkOutcome> {
  const args = [
    '-p',
    request.prompt,
    '--resume',
    request.sessionId,
    '--fork-session',
    '--session-id',
    forkId,
    '--output-format',
    'json',
    // Read the repo (the brief is in it) and write the document, nothing else: `dontAsk` refuses what
    // no rule allows, even where the user's settings say `acceptEdits`. The tool list itself stays the
    // session's (`--tools` would change the cached prefix).
    '--permission-mode',
    'dontAsk',
    '--allowedTools',
    ...forkPermissions(request.cwd, request.document),
    ...(request.model ? ['--model', request.model] : []),
  ];
  const result = await runProcess(request.command, args, {
    cwd: request.cwd,
    env: { ...request.env, [FORK_MARKER]: '1' },
    timeoutMs: request.timeoutMs,
    signal: request.signal,
    // Its own process group: a timeout or the daemon's stop kills the client's children with it.
    processGroup: true,
    killGraceMs: 2_000,
    maxBuffer: 4_000_000,
  });
  if (result.startError) return { ok: false, reason: `could not start ${request.command}: ${result.startError.message}`, usage: null };
  if (result.stopped === 'timeout')
    return { ok: false, reason: `the fork did not finish within ${Math.round(request.timeoutMs / 1000)}s`, usage: null };
  if (result.stopped === 'aborted') return { ok: false, reason: 'the daemon stopped', usage: null };
  const answer = parseAnswer(result.stdout);
  if (result.exitCode !== 0) {
    const said = answer?.result || result.stderr.trim().split('\n').at(-1) || '';
    return {
      ok: false,
      reason: `the fork exited ${result.exitCode ?? result.signal}${said ? `: ${said.slice(0, 200)}` : ''}`,
      usage: answer?.usage ?? null,
    };
  }
  if (answer === null) return { ok: false, reason: 'the fork gave no JSON answer', usage: null };
  if (answer.isError) return { ok: false, reason: `the fork failed: ${answer.result.slice(0, 200)}`, usage: answer.usage };
  return { ok: true, usage: answer.usage ?? ZERO, model: answer.model };
}

const ZERO: PricedUsage = { input: 0, output: 0, cacheWrite5m: 0, cacheWrite1h: 0, cacheRead: 0 };

/** `--output-format json`'s answer: `usage` is the fork's own turn (its `modelUsage` also counts the original's). */
function parseAnswer(stdout: string): { result: string; isError: boolean; usage: PricedUsage | null; model: string | null } | null {
  let value: unknown;
  try {
    value = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const answer = value as Record<string, unknown>;
  const usage = answer.usage as Record<string, unknown> | undefined;
  const count = (field: unknown) => (typeof field === 'number' && Number.isFinite(field) && field >= 0 ? Math.round(field) : 0);
  const written = count(usage?.cache_creation_input_tokens);
  const split = usage?.cache_creation as Record<string, unknown> | undefined;
  const hour = split ? count(split.ephemeral_1h_input_tokens) : 0;
  const models = answer.modelUsage && typeof answer.modelUsage === 'object' ? Object.keys(answer.modelUsage) : [];
  return {
    result: typeof answer.result === 'string' ? answer.result : '',
    isError: answer.is_error === true,
    usage: usage
      ? {
          input: count(usage.input_tokens),
          output: count(usage.output_tokens),
          cacheRead: count(usage.cache_read_input_tokens),
          // Without the split, a write counts as the 1-hour cache's (Claude Code's own when the cache is warm for an hour).
          cacheWrite1h: split ? hour : written,
          cacheWrite5m: split ? Math.max(0, written - hour) : 0,
        }
      : null,
    model: models.length === 1 ? models[0]! : null,
  };
}
