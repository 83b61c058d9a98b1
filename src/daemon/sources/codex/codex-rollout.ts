// Codex CLI rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`), folded line by
// line into the session state (X3): the context as Codex itself measures it, its window, its own
// compactions (kit/observations.ts makes each into state). Pure: no I/O.
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
// - Older clients wrote a `context_compacted` event instead of the item; both are read.
import path from 'node:path';
import { z } from 'zod';
import { compiledOnFirstUse } from '../../../compiled-schema.js';
import { parseJsonLine } from '../../watching/line-fold-reader.js';
import type { SessionState } from '../../watching/session-source.js';
import type { AgentLineFold, MeasureBy } from '../kit/agent-reader.js';
import { asRecord, type JsonRecord } from '../kit/json-record.js';
import { detailsOf, observeCompaction, observeMeasure, observeReading, observeStart } from '../kit/observations.js';

/** What the fold keeps besides the shared fields (in SessionState.details). */
export type CodexDetails = {
  /** The window Codex stated with its last reading. */
  readonly reportedWindow: number | null;
  /** Key of the last reading, to drop an identical repeat. */
  readonly readingKey: string | null;
  /** A compaction was recorded since the last real reading (its markers come several at once). */
  readonly compactedSinceReading: boolean;
};

/** Line types that never matter here: left unparsed (response_item lines carry whole tool outputs). */
const IGNORED_TYPES = new Set(['response_item', 'world_state', 'token_usage_record']);
/** `{"timestamp":"…",("ordinal":N,)"type":"X"` — the line's type, from its first bytes. */
const TYPE_PREFIX = /^\{"timestamp":"([^"]{0,64})",(?:"ordinal":\d{1,12},)?"type":"([a-z_]{1,40})"/;

/** The type of a rollout line read from its first bytes, or null when it is not written that way. */
export function rolloutLineType(text: string): string | null {
  return TYPE_PREFIX.exec(text.slice(0, 160))?.[2] ?? null;
}

/** `rollout-2026-12-03T05-43-02-<uuid>.jsonl` → the uuid (the session_meta line says it too). */
const ID_IN_NAME = /-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

export function codexSessionIdFromName(file: string): string {
  return ID_IN_NAME.exec(path.basename(file))?.[1] ?? path.basename(file, '.jsonl');
}

const Count = z.number().int().nonnegative();
const TokenCountInfo = compiledOnFirstUse(
  z.looseObject({
    last_token_usage: z.looseObject({
      input_tokens: Count,
      cached_input_tokens: Count.optional(),
      output_tokens: Count,
      reasoning_output_tokens: Count.optional(),
      total_tokens: Count.optional(),
    }),
    model_context_window: z.number().int().positive().nullable().optional(),
  }),
);

export const codexRolloutFold: AgentLineFold = {
  agent: 'codex',
  details: { reportedWindow: null, readingKey: null, compactedSinceReading: false } satisfies CodexDetails,
  sessionId: codexSessionIdFromName,
  fold: foldCodexLine,
};

/** Folds one line (its raw text) into the state. Unknown line and event types change nothing; they are not skipped. */
function foldCodexLine(state: SessionState, text: string, measure: MeasureBy): SessionState | string {
  const prefix = TYPE_PREFIX.exec(text.slice(0, 160));
  if (prefix && IGNORED_TYPES.has(prefix[2]!)) return state;
  if (prefix?.[2] === 'compacted') return compaction(state, prefix[1]!);
  const value = parseJsonLine(text);
  if (value === undefined) return 'not JSON';
  const line = asRecord(value);
  if (typeof line?.type !== 'string') return 'not a rollout line (no type)';
  const at = typeof line.timestamp === 'string' ? line.timestamp : null;
  const payload = asRecord(line.payload);
  if (line.type === 'session_meta') return sessionMeta(state, payload, at);
  if (line.type === 'turn_context' && typeof payload?.model === 'string')
    return observeMeasure(state, measure(payload.model, details(state).reportedWindow));
  if (line.type === 'compacted') return compaction(state, at);
  if (line.type !== 'event_msg') return state;
  if (!payload) return 'event_msg without a payload';
  if (payload.type === 'token_count') return tokenCount(state, payload.info, at, measure);
  if (payload.type === 'context_compacted') return compaction(state, at);
  if (payload.type !== 'item_completed') return state;
  const item = asRecord(payload.item);
  if (!item) return 'item_completed without an item';
  return item.type === 'ContextCompaction' ? compaction(state, at) : state;
}

const details = detailsOf<CodexDetails>;

function sessionMeta(state: SessionState, payload: JsonRecord | null, at: string | null): SessionState | string {
  // Each process that writes the rollout (a resume too) starts with its own session_meta: the latest says who runs it.
  const next = typeof payload?.originator === 'string' ? { ...state, scripted: payload.originator === 'codex_exec' } : state;
  if (state.cwd !== null) return next; // only the first one names the session
  const id = payload?.id ?? payload?.session_id;
  if (typeof id !== 'string' || typeof payload?.cwd !== 'string') return 'session_meta without id and cwd';
  // The reader decided the owner from this line's head: the fold does not judge it again.
  const started = observeStart(next, typeof payload.timestamp === 'string' ? payload.timestamp : at, payload.cwd, null);
  return { ...started, sessionId: id };
}

function tokenCount(state: SessionState, info: unknown, at: string | null, measure: MeasureBy): SessionState | string {
  // The client writes `info: null` before the first reply: nothing measured yet.
  if (info === null || info === undefined) return state;
  const parsed = TokenCountInfo().safeParse(info);
  if (!parsed.success) return `token_count reading is not usable: ${parsed.error.issues[0]?.message ?? 'invalid'}`;
  const usage = parsed.data.last_token_usage;
  const kept = details(state);
  const window = parsed.data.model_context_window ?? kept.reportedWindow;
  const cached = usage.cached_input_tokens ?? 0;
  const reasoning = usage.reasoning_output_tokens ?? 0;
  const key = JSON.stringify([usage.input_tokens, cached, usage.output_tokens, reasoning, usage.total_tokens ?? null, window]);
  if (key === kept.readingKey) return state;
  const contextTokens = usage.total_tokens ?? usage.input_tokens + usage.output_tokens;
  // No request has all-zero usage: this is Codex's own compaction, whose total is its estimate of what is left.
  const compacted = usage.input_tokens + cached + usage.output_tokens + reasoning === 0 && state.latestUsage !== null;
  const read = observeReading(state, {
    ...measure(state.model, window),
    promptTokens: contextTokens,
    outputTokens: usage.output_tokens,
    totalTokens: contextTokens,
    details: {
      reportedWindow: window,
      readingKey: key,
      compactedSinceReading: compacted && kept.compactedSinceReading,
    } satisfies CodexDetails,
  });
  const next = { ...read, messageCount: state.messageCount + 1 };
  return compacted ? compaction(next, at, state.latestUsage!.prompt_tokens) : next;
}

function compaction(state: SessionState, at: string | null, preTokens = state.latestUsage?.prompt_tokens ?? null): SessionState {
  const kept = details(state);
  if (kept.compactedSinceReading) return state;
  const next = observeCompaction(state, { at: at ?? state.lastCompactionAt ?? null, preTokens, trigger: null });
  return { ...next, details: { ...kept, compactedSinceReading: true } satisfies CodexDetails };
}
