// What an agent's line fold has seen, made into session state the same way for every agent: the
// session's start and working directory (and so whether it is this repo's), a compaction, a message,
// the model and window it runs by, a reading of its context. Each agent's fold parses its own lines
// and says what it saw; how that changes the state, and when the session is over its threshold,
// is decided here once. Pure functions.
import { z } from 'zod';
import { type AgentWindowSettings, agentWindow } from '../../../config/agent-models.js';
import type { WatchedAgent } from '../../../config/agent-names.js';
import { belongsToRepo } from '../../../probe/innermost-repo.js';
import { parseJsonLine } from '../../watching/line-fold-reader.js';
import {
  agentThresholds,
  emptyAgentState,
  isOverThreshold,
  type SessionState,
  type SessionThresholds,
} from '../../watching/session-source.js';

/** A count of tokens as an agent writes it: a whole number, and never more than any window holds. */
export const TokenCount = z.number().int().nonnegative().max(100_000_000);

/** What an agent's fold is given: the window settings, and the repo (whether a session is its: the first cwd decides). */
export interface FoldOptions extends AgentWindowSettings {
  /** Real path of the repo. */
  readonly root: string;
}

/** The fields every line of a Claude-shaped transcript carries (Claude Code's, and Qwen Code's after it). */
export const CLAUDE_SHAPED_LINE = {
  type: z.string(),
  subtype: z.string().optional(),
  sessionId: z.string().optional(),
  cwd: z.string().optional(),
  timestamp: z.string().optional(),
};

/** The window and thresholds a session runs by, for its model. */
export interface Measure {
  readonly model: string | null;
  readonly window: number | null;
  readonly thresholds: SessionThresholds;
}

/** A reading of the context: the prompt's tokens (what fills the window) and the reply's. */
export interface Reading extends Measure {
  readonly promptTokens: number;
  readonly outputTokens: number;
  /** What the agent counts as the total, when it says (else prompt + output). */
  readonly totalTokens?: number;
  /** The agent's own bookkeeping after this reading (SessionState.details). */
  readonly details: object;
}

/** What the agent's transcript says of its window besides the model: the window it states, the largest reading (Claude's 1M proof). */
export interface WindowHints {
  readonly reported?: number | null;
  readonly largestReading?: number;
}

/**
 * The window and thresholds of `model`: the config's window, the user's entry, what the transcript
 * said, then the model table; `ownPoint` is where the agent compacts a window of that size by its own
 * rule (absent: the table's point for the model).
 */
export function measureOf(
  agent: WatchedAgent,
  model: string | null,
  settings: AgentWindowSettings,
  hints: WindowHints = {},
  ownPoint?: (window: number) => number | null,
): Measure {
  const window = agentWindow(agent, model, { configured: settings.contextWindow, models: settings.models, ...hints });
  const own = ownPoint === undefined ? undefined : window === null ? null : ownPoint(window);
  return { model, window, thresholds: agentThresholds(agent, model, window, settings, own) };
}

/** A session before its first line: measured for the model it names at the start (none yet), with the fold's own bookkeeping. */
export function emptyFoldState(kind: WatchedAgent, file: string, sessionId: string, measure: Measure, details: object): SessionState {
  return emptyAgentState({ kind, file, sessionId, window: measure.window, thresholds: measure.thresholds, details });
}

/** The fold's own bookkeeping, as it keeps it in SessionState.details. */
export function detailsOf<D extends object>(state: SessionState): D {
  return state.details as unknown as D;
}

/** A transcript line read by the agent's schema; else why it is skipped (not JSON, or no line of the agent's: `what`). */
export function parseAgentLine<T extends z.ZodType<object>>(text: string, schema: () => T, what: string): z.infer<T> | string {
  const value = parseJsonLine(text);
  if (value === undefined) return 'not JSON';
  const parsed = schema().safeParse(value);
  return parsed.success ? parsed.data : `not ${what}`;
}

/** The first stamp and working directory a transcript names: when it started, and whether it is this repo's. */
export function observeStart(
  state: SessionState,
  at: string | null | undefined,
  cwd: string | null | undefined,
  root: string | null,
): SessionState {
  let next = state;
  if (next.startedAt === null && at) next = { ...next, startedAt: at };
  if (next.cwd === null && cwd) next = { ...next, cwd, otherRepo: root === null ? false : !belongsToRepo(root, cwd) };
  return next;
}

/** The agent compacted its history: counted, and what it held before (where the agent compacts). */
export function observeCompaction(
  state: SessionState,
  compaction: { readonly at: string | null; readonly preTokens: number | null; readonly trigger: unknown },
  cleared?: { readonly details: object },
): SessionState {
  const trigger = typeof compaction.trigger === 'string' ? compaction.trigger.slice(0, 40) : null;
  const next: SessionState = {
    ...state,
    compactions: (state.compactions ?? 0) + 1,
    lastCompactionAt: compaction.at,
    lastCompaction: { at: compaction.at, preTokens: compaction.preTokens, trigger },
    // An agent whose context is unknown until its next reading (pi) clears the reading it had.
    ...(cleared ? { latestUsage: null, details: cleared.details as SessionState['details'] } : {}),
  };
  return cleared ? measured(next) : next;
}

/** The session runs another model (at its start, after `/model`): its window and thresholds, before the next reply. */
export function observeMeasure(state: SessionState, measure: Measure): SessionState {
  if (measure.model === state.model && measure.window === state.maxContextTokens) return state;
  return measured({ ...state, model: measure.model, maxContextTokens: measure.window, thresholds: measure.thresholds });
}

/** A reading of the context: the usage, the first reading, and whether the session is over its threshold now. */
export function observeReading(state: SessionState, reading: Reading): SessionState {
  const total = reading.totalTokens ?? reading.promptTokens + reading.outputTokens;
  return measured({
    ...state,
    model: reading.model,
    maxContextTokens: reading.window,
    thresholds: reading.thresholds,
    latestUsage: { prompt_tokens: reading.promptTokens, completion_tokens: reading.outputTokens, total_tokens: total },
    firstReadingTokens: state.firstReadingTokens ?? reading.promptTokens,
    details: reading.details as SessionState['details'],
  });
}

/** The state with `overflowed` derived from what it holds. */
export function measured(state: SessionState): SessionState {
  return { ...state, overflowed: isOverThreshold(state) };
}

/** Why a line's usage was skipped: the agent would not have written it so (the first problem zod found). */
export function notTheAgents(what: string, error: z.ZodError): string {
  const issue = error.issues[0];
  return `${what} would not write (${issue?.path.join('.') ?? '?'}: ${issue?.message ?? '?'})`;
}
