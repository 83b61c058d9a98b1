// Codex CLI rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`), folded line by
// line into what the daemon needs (X3): the context as Codex itself measures it, its window, its
// own compactions, and the evidence an offline handoff document is made of. Pure: no I/O.
//
// Learned from files the real client (0.171) writes:
// - `session_meta` (first line): `payload.id`, `payload.cwd`.
// - `event_msg` `token_count`: `info.last_token_usage` is the last request's usage and
//   `info.model_context_window` the window. Codex's "tokens in the context window" is
//   `last_token_usage.total_tokens` (input, cached input included, plus output) — its auto-compaction
//   fires on that number, not on input alone (checked against the real client) — never the running
//   `total_token_usage`. The same reading is often written twice in a row: it counts once.
// - After Codex compacts by itself it writes a `compacted` line, an `item_completed`
//   `ContextCompaction` item and a reading whose input/cached/output/reasoning are all zero (its
//   `total_tokens` is Codex's estimate of the history that is left).
// - `item_completed` items: `UserMessage` (the user's own words), `AgentMessage`,
//   `CommandExecution` (`command`, `exit_code`), `FileChange` (`changes`: path → change). Older
//   clients wrote `user_message`, `agent_message`, `exec_command_end`, `patch_apply_*` events
//   instead; both are read.
import { z } from 'zod';
import { compiledOnFirstUse } from '../../../compiled-schema.js';
import { asRecord } from '../kit/json-record.js';

export interface CodexReading {
  /** What Codex counts as in its context window: last_token_usage.total_tokens. */
  readonly contextTokens: number;
  readonly window: number | null;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly at: string | null;
}

export interface CodexCommand {
  readonly command: string;
  /** null: the client did not say (still running, killed). */
  readonly exitCode: number | null;
}

export interface CodexEvidence {
  /** The user's own words in their last message (not tool output, not the harness's context). */
  readonly lastUserRequest: string | null;
  readonly lastAssistantText: string | null;
  /** Files written by apply_patch, in the order first changed (absolute as Codex recorded them). */
  readonly filesChanged: readonly string[];
  /** The latest commands, oldest first (at most MAX_COMMANDS). */
  readonly commands: readonly CodexCommand[];
  readonly commandCount: number;
}

export interface CodexRolloutView {
  readonly sessionId: string | null;
  readonly cwd: string | null;
  readonly cliVersion: string | null;
  /** The latest process to write the rollout is `codex exec` (session_meta `originator: "codex_exec"`), a script's run (issue 19 §7). */
  readonly scripted?: boolean;
  /** When the session started (session_meta). */
  readonly startedAt: string | null;
  readonly model: string | null;
  readonly reading: CodexReading | null;
  /** The context of the session's first reading: one that starts above handoffAt waits 10 more points (issue 10 §6). */
  readonly firstReadingTokens: number | null;
  /** Distinct readings seen (a repeated identical reading counts once). */
  readonly readingCount: number;
  /** Times Codex compacted its own history. */
  readonly compactions: number;
  readonly lastCompactionAt: string | null;
  /** The context just before the last compaction (the reading before its markers): where Codex compacts (issue 19 §2). */
  readonly lastCompactionPreTokens?: number | null;
  /** A compaction was recorded since the last real reading (its markers come several at once). */
  readonly compactedSinceReading: boolean;
  readonly evidence: CodexEvidence;
  /** Key of the last reading, to drop an identical repeat. */
  readonly readingKey: string | null;
}

export type CodexLineNews = 'reading' | 'compaction' | null;

export type CodexFold = { readonly view: CodexRolloutView; readonly news: CodexLineNews } | { readonly skip: string };

export const MAX_COMMANDS = 50;

export function emptyCodexView(): CodexRolloutView {
  return {
    sessionId: null,
    cwd: null,
    cliVersion: null,
    startedAt: null,
    model: null,
    reading: null,
    firstReadingTokens: null,
    readingCount: 0,
    compactions: 0,
    lastCompactionAt: null,
    compactedSinceReading: false,
    evidence: { lastUserRequest: null, lastAssistantText: null, filesChanged: [], commands: [], commandCount: 0 },
    readingKey: null,
  };
}

/** Line types that never matter here: left unparsed (response_item lines carry whole tool outputs). */
const IGNORED_TYPES = new Set(['response_item', 'world_state', 'token_usage_record']);
/** `{"timestamp":"…",("ordinal":N,)"type":"X"` — the line's type, from its first bytes. */
const TYPE_PREFIX = /^\{"timestamp":"([^"]{0,64})",(?:"ordinal":\d{1,12},)?"type":"([a-z_]{1,40})"/;

/** The type of a rollout line read from its first bytes, or null when it is not written that way. */
export function rolloutLineType(text: string): string | null {
  return TYPE_PREFIX.exec(text.slice(0, 160))?.[2] ?? null;
}

function rolloutLineTimestamp(text: string): string | null {
  return TYPE_PREFIX.exec(text.slice(0, 160))?.[1] ?? null;
}

const Count = z.number().int().nonnegative();
const TokenUsage = z.looseObject({
  input_tokens: Count,
  cached_input_tokens: Count.optional(),
  output_tokens: Count,
  reasoning_output_tokens: Count.optional(),
  total_tokens: Count.optional(),
});
const TokenCountInfo = compiledOnFirstUse(
  z.looseObject({
    last_token_usage: TokenUsage,
    model_context_window: z.number().int().positive().nullable().optional(),
  }),
);

const RolloutLine = compiledOnFirstUse(
  z.looseObject({
    timestamp: z.string().optional(),
    type: z.string(),
    payload: z.unknown(),
  }),
);

/** Folds one line (its raw text) into the view. Unknown line and event types are no news, not skips. */
export function foldCodexLine(view: CodexRolloutView, text: string): CodexFold {
  const prefixType = rolloutLineType(text);
  if (prefixType !== null && IGNORED_TYPES.has(prefixType)) return { view, news: null };
  if (prefixType === 'compacted') return compaction(view, rolloutLineTimestamp(text));
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { skip: 'not JSON' };
  }
  const line = RolloutLine().safeParse(raw);
  if (!line.success) return { skip: 'not a rollout line (no type)' };
  const { type, payload, timestamp } = line.data;
  const record = asRecord(payload);
  switch (type) {
    case 'session_meta':
      return sessionMeta(view, record, timestamp ?? null);
    case 'turn_context': {
      const model = typeof record?.model === 'string' ? record.model : view.model;
      return { view: { ...view, model }, news: null };
    }
    case 'compacted':
      return compaction(view, timestamp ?? null);
    case 'event_msg':
      return record ? eventMessage(view, record, timestamp ?? null) : { skip: 'event_msg without a payload' };
    default:
      return { view, news: null };
  }
}

function sessionMeta(before: CodexRolloutView, payload: Record<string, unknown> | null, at: string | null): CodexFold {
  // Each process that writes the rollout (a resume too) starts with its own session_meta: the latest says who runs it.
  const scripted = typeof payload?.originator === 'string' ? payload.originator === 'codex_exec' : before.scripted;
  const view = scripted === before.scripted || scripted === undefined ? before : { ...before, scripted };
  if (view.sessionId !== null) return { view, news: null }; // only the first one names the session
  const id = payload?.id ?? payload?.session_id;
  if (typeof id !== 'string' || typeof payload?.cwd !== 'string') return { skip: 'session_meta without id and cwd' };
  const startedAt = typeof payload.timestamp === 'string' ? payload.timestamp : at;
  return {
    view: {
      ...view,
      sessionId: id,
      cwd: payload.cwd,
      cliVersion: typeof payload.cli_version === 'string' ? payload.cli_version : null,
      startedAt,
    },
    news: null,
  };
}

function eventMessage(view: CodexRolloutView, payload: Record<string, unknown>, at: string | null): CodexFold {
  switch (payload.type) {
    case 'token_count':
      return tokenCount(view, payload, at);
    case 'item_completed': {
      const item = asRecord(payload.item);
      return item ? completedItem(view, item, at) : { skip: 'item_completed without an item' };
    }
    case 'user_message':
      return typeof payload.message === 'string' ? withEvidence(view, { lastUserRequest: payload.message }) : { view, news: null };
    case 'agent_message':
      return typeof payload.message === 'string' ? withEvidence(view, { lastAssistantText: payload.message }) : { view, news: null };
    case 'exec_command_end':
      return withCommand(view, commandText(payload.command), exitCodeOf(payload.exit_code));
    case 'patch_apply_begin':
    case 'patch_apply_end':
      return payload.success === false ? { view, news: null } : withFiles(view, changedPaths(payload.changes));
    case 'context_compacted':
      return compaction(view, at);
    default:
      return { view, news: null };
  }
}

function completedItem(view: CodexRolloutView, item: Record<string, unknown>, at: string | null): CodexFold {
  switch (item.type) {
    case 'UserMessage': {
      const text = contentText(item.content);
      return text === null ? { view, news: null } : withEvidence(view, { lastUserRequest: text });
    }
    case 'AgentMessage': {
      const text = contentText(item.content);
      return text === null ? { view, news: null } : withEvidence(view, { lastAssistantText: text });
    }
    case 'CommandExecution':
      return withCommand(view, commandText(item.command), exitCodeOf(item.exit_code));
    case 'FileChange':
      return item.status === 'failed' || item.status === 'declined' ? { view, news: null } : withFiles(view, changedPaths(item.changes));
    case 'ContextCompaction':
      return compaction(view, at);
    default:
      return { view, news: null };
  }
}

function tokenCount(view: CodexRolloutView, payload: Record<string, unknown>, at: string | null): CodexFold {
  // The client writes `info: null` before the first reply: nothing measured yet.
  if (payload.info === null || payload.info === undefined) return { view, news: null };
  const parsed = TokenCountInfo().safeParse(payload.info);
  if (!parsed.success) return { skip: `token_count reading is not usable: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  const usage = parsed.data.last_token_usage;
  const window = parsed.data.model_context_window ?? view.reading?.window ?? null;
  const key = JSON.stringify([
    usage.input_tokens,
    usage.cached_input_tokens ?? 0,
    usage.output_tokens,
    usage.reasoning_output_tokens ?? 0,
    usage.total_tokens ?? null,
    window,
  ]);
  if (key === view.readingKey) return { view, news: null };
  const allZero =
    usage.input_tokens === 0 &&
    (usage.cached_input_tokens ?? 0) === 0 &&
    usage.output_tokens === 0 &&
    (usage.reasoning_output_tokens ?? 0) === 0;
  const reading: CodexReading = {
    contextTokens: usage.total_tokens ?? usage.input_tokens + usage.output_tokens,
    window,
    inputTokens: usage.input_tokens,
    cachedInputTokens: usage.cached_input_tokens ?? 0,
    outputTokens: usage.output_tokens,
    at,
  };
  const next: CodexRolloutView = {
    ...view,
    reading,
    readingKey: key,
    readingCount: view.readingCount + 1,
    firstReadingTokens: view.firstReadingTokens ?? reading.contextTokens,
  };
  // No request has all-zero usage: this is Codex's own compaction, whose total is its estimate of what is left.
  if (allZero && view.reading !== null) {
    const compacted = compaction(next, at, view.reading.contextTokens);
    return 'view' in compacted ? { view: compacted.view, news: compacted.news ?? 'reading' } : compacted;
  }
  return { view: { ...next, compactedSinceReading: false }, news: 'reading' };
}

function compaction(view: CodexRolloutView, at: string | null, preTokens: number | null = view.reading?.contextTokens ?? null): CodexFold {
  if (view.compactedSinceReading) return { view, news: null };
  return {
    view: {
      ...view,
      compactions: view.compactions + 1,
      lastCompactionAt: at ?? view.lastCompactionAt,
      lastCompactionPreTokens: preTokens,
      compactedSinceReading: true,
    },
    news: 'compaction',
  };
}

function withEvidence(view: CodexRolloutView, change: Partial<CodexEvidence>): CodexFold {
  return { view: { ...view, evidence: { ...view.evidence, ...change } }, news: null };
}

function withCommand(view: CodexRolloutView, command: string | null, exitCode: number | null): CodexFold {
  if (command === null) return { view, news: null };
  const commands = [...view.evidence.commands, { command, exitCode }].slice(-MAX_COMMANDS);
  return withEvidence(view, { commands, commandCount: view.evidence.commandCount + 1 });
}

function withFiles(view: CodexRolloutView, files: readonly string[]): CodexFold {
  const fresh = files.filter((file) => !view.evidence.filesChanged.includes(file));
  return fresh.length === 0 ? { view, news: null } : withEvidence(view, { filesChanged: [...view.evidence.filesChanged, ...fresh] });
}

function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content.map((part) => asRecord(part)?.text).filter((text): text is string => typeof text === 'string');
  return texts.length > 0 ? texts.join('\n') : null;
}

/** `["/bin/bash", "-lc", "npm test"]` → `npm test`; other argv forms joined with spaces. */
function commandText(command: unknown): string | null {
  if (typeof command === 'string') return command;
  if (!Array.isArray(command) || !command.every((part) => typeof part === 'string')) return null;
  const argv = command as string[];
  if (argv.length === 3 && /(^|\/)(ba|z|)sh$/.test(argv[0]!) && /^-l?c$/.test(argv[1]!)) return argv[2]!;
  return argv.join(' ');
}

function exitCodeOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
}

function changedPaths(changes: unknown): string[] {
  const record = asRecord(changes);
  if (!record) return [];
  const paths: string[] = [];
  for (const [file, change] of Object.entries(record)) {
    paths.push(file);
    // A rename names its destination too.
    const movedTo = asRecord(change)?.move_path;
    if (typeof movedTo === 'string') paths.push(movedTo);
  }
  return paths;
}
