// The fold of a Copilot CLI transcript (`events.jsonl`, one `{type, data, id, timestamp, agentId?}`
// event a line) into the session state, purely (kit/observations.ts makes each sight into state).
// The context is measured as Copilot measures it for its own status line: the last main-agent model
// call's input plus output tokens (its `session.usage_record` lines: `inputTokens` counts cached
// input too, for OpenAI and Anthropic providers alike; checked with 1.0.102). The window is that
// call's `maxPromptTokens`, the prompt budget Copilot compacts against (it compacts by itself at 95%
// of it, its changelog says). The live `session.usage_info` readings of its footer are never
// written to the file.
import { parseJsonLine } from '../../watching/line-fold-reader.js';
import type { SessionState } from '../../watching/session-source.js';
import type { AgentLineFold, MeasureBy } from '../kit/agent-reader.js';
import { asRecord, type JsonRecord } from '../kit/json-record.js';
import { observeCompaction, observeMeasure, observeReading, observeStart } from '../kit/observations.js';
import { copilotSessionIdOf } from './copilot-paths.js';

/** What the fold keeps besides the shared fields (in SessionState.details). */
export type CopilotDetails = {
  /** maxPromptTokens of the last main-agent call; null when it did not say. */
  readonly reportedWindow: number | null;
  /** What `session.compaction_start` said of the compaction under way (its `currentTokens`, its trigger). */
  readonly compacting: { readonly preTokens: number | null; readonly trigger: string | null } | null;
  /**
   * The model call under way (`assistant.turn_start` … `turn_end`) has been counted in messageCount:
   * `usage` by its usage line, `end` at its end, its usage line still to come (Copilot may write it
   * after the agentStop hook: it must not count as the person going on in the session).
   */
  readonly callCounted?: 'usage' | 'end' | null;
};

/** Event types the fold reads; every other line (most bytes: tool output, messages) is passed over unparsed. */
const FOLDED = new Set([
  'session.start',
  'session.resume',
  'session.model_change',
  'session.usage_record',
  'session.compaction_start',
  'session.compaction_complete',
  'system.message',
  'assistant.turn_start',
  'assistant.turn_end',
]);

/** The event's type from the line's first bytes (Copilot writes `{"type":"…"` first), without parsing it. */
export function eventTypeOf(text: string): string | null {
  const match = /^\{"type":"([a-z_.]+)"/.exec(text);
  return match ? match[1]! : null;
}

/** The non-interactive prompt Copilot gives a `-p` run: such a session is a script's. */
const NON_INTERACTIVE = 'running in non-interactive mode';

export const copilotEventsFold: AgentLineFold = {
  agent: 'copilot',
  details: { reportedWindow: null, compacting: null, callCounted: null } satisfies CopilotDetails,
  sessionId: copilotSessionIdOf,
  fold: foldCopilotLine,
};

export function foldCopilotLine(state: SessionState, text: string, measure: MeasureBy): SessionState | string {
  const type = eventTypeOf(text);
  if (type !== null && !FOLDED.has(type)) return state;
  const event = asRecord(parseJsonLine(text));
  if (!event) return 'not a JSON object';
  // A subagent's events (they carry its agentId) are not the main conversation's context.
  if (typeof event.agentId === 'string') return state;
  const data = asRecord(event.data) ?? {};
  const at = typeof event.timestamp === 'string' ? event.timestamp : null;
  const kept = state.details as unknown as CopilotDetails;
  const model = (value: unknown) => observeMeasure(state, measure(stringOr(value, state.model), kept.reportedWindow));
  switch (event.type) {
    case 'session.start':
    case 'session.resume':
      return observeStart(model(data.selectedModel), stringOr(data.startTime, at), stringOr(asRecord(data.context)?.cwd, null), null);
    case 'session.model_change':
      return model(data.newModel);
    case 'session.usage_record':
      return usageRecord(state, asRecord(data.usage), measure);
    case 'session.compaction_start': {
      const compacting = { preTokens: numberOr(data.currentTokens, null), trigger: stringOr(data.trigger, null) };
      return { ...state, details: { ...kept, compacting } satisfies CopilotDetails };
    }
    case 'session.compaction_complete':
      return data.success === true ? compacted(state, data, at, measure) : state;
    case 'assistant.turn_start':
      return { ...state, details: { ...kept, callCounted: null } satisfies CopilotDetails };
    case 'assistant.turn_end':
      if (kept.callCounted) return state;
      return { ...state, messageCount: state.messageCount + 1, details: { ...kept, callCounted: 'end' } satisfies CopilotDetails };
    case 'system.message':
      if (state.scripted !== undefined || typeof data.content !== 'string') return state;
      return { ...state, scripted: data.content.includes(NON_INTERACTIVE) };
    default:
      return state;
  }
}

function usageRecord(state: SessionState, usage: JsonRecord | null, measure: MeasureBy): SessionState {
  // Only the conversation's own calls: title and naming requests are not its context.
  if (!usage || (usage.interactionType !== undefined && usage.interactionType !== 'conversation-agent')) return state;
  const input = numberOr(usage.inputTokens, null);
  if (input === null) return state;
  const output = numberOr(usage.outputTokens, 0) ?? 0;
  const window = numberOr(usage.maxPromptTokens, null);
  const kept = state.details as unknown as CopilotDetails;
  // The call was counted at its end already: its late usage line is no new message.
  const counted = kept.callCounted === 'end';
  const details: CopilotDetails = { ...kept, reportedWindow: window, callCounted: 'usage' };
  const read = observeReading(state, {
    ...measure(stringOr(usage.model, state.model), window),
    promptTokens: input + output,
    outputTokens: output,
    totalTokens: input + output,
    details,
  });
  return { ...read, messageCount: state.messageCount + (counted ? 0 : 1) };
}

/** A compaction done: counted, and the context it left is the reading until the next call. */
function compacted(state: SessionState, data: JsonRecord, at: string | null, measure: MeasureBy): SessionState {
  const { compacting, reportedWindow } = state.details as unknown as CopilotDetails;
  const last = state.lastCompaction;
  const preTokens = numberOr(data.preCompactionTokens, null) ?? (compacting ? compacting.preTokens : null) ?? last?.preTokens ?? null;
  const trigger = compacting ? compacting.trigger : (last?.trigger ?? null);
  const details: CopilotDetails = { reportedWindow, compacting: null };
  const next = { ...observeCompaction(state, { at, preTokens, trigger }), details };
  const after = numberOr(data.postCompactionTokens, null);
  if (after === null || state.latestUsage === null) return next;
  return observeReading(next, {
    ...measure(state.model, reportedWindow),
    promptTokens: after,
    outputTokens: 0,
    totalTokens: after,
    details,
  });
}

function stringOr(value: unknown, fallback: string | null): string | null {
  return typeof value === 'string' && value.length > 0 ? value : fallback;
}

function numberOr(value: unknown, fallback: number | null): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}
