// The fold of a Copilot CLI transcript (`events.jsonl`, one `{type, data, id, timestamp, agentId?}`
// event a line) into what the daemon needs, purely. The context is measured as Copilot measures it
// for its own status line: the last main-agent model call's input plus output tokens (its
// `session.usage_record` lines: `inputTokens` counts cached input too, for OpenAI and Anthropic
// providers alike; checked with 1.0.102). The window is that call's `maxPromptTokens`, the prompt
// budget Copilot compacts against (it compacts by itself at 95% of it, its changelog says). The
// live `session.usage_info` readings of its footer are never written to the file.
import { parseJsonLine } from '../../watching/line-fold-reader.js';
import { asRecord } from '../kit/json-record.js';

export interface CopilotReading {
  /** inputTokens + outputTokens of the last main-agent call (after a compaction: the tokens it left). */
  readonly contextTokens: number;
  readonly outputTokens: number;
  /** maxPromptTokens of that call; null when it did not say. */
  readonly window: number | null;
}

export interface CopilotView {
  readonly sessionId: string | null;
  readonly model: string | null;
  readonly cwd: string | null;
  readonly startedAt: string | null;
  readonly reading: CopilotReading | null;
  readonly readingCount: number;
  readonly firstReadingTokens: number | null;
  readonly compactions: number;
  readonly lastCompactionAt: string | null;
  readonly lastCompactionPreTokens: number | null;
  readonly lastCompactionTrigger: string | null;
  /** A `copilot -p` run (its system message says it runs non-interactively). */
  readonly scripted?: boolean;
}

export function emptyCopilotView(): CopilotView {
  return {
    sessionId: null,
    model: null,
    cwd: null,
    startedAt: null,
    reading: null,
    readingCount: 0,
    firstReadingTokens: null,
    compactions: 0,
    lastCompactionAt: null,
    lastCompactionPreTokens: null,
    lastCompactionTrigger: null,
  };
}

/** Event types the fold reads; every other line (most bytes: tool output, messages) is passed over unparsed. */
const FOLDED = [
  'session.start',
  'session.resume',
  'session.model_change',
  'session.usage_record',
  'session.compaction_start',
  'session.compaction_complete',
  'system.message',
] as const;

/** The event's type from the line's first bytes (Copilot writes `{"type":"…"` first), without parsing it. */
export function eventTypeOf(text: string): string | null {
  const match = /^\{"type":"([a-z_.]+)"/.exec(text);
  return match ? match[1]! : null;
}

/** The non-interactive prompt Copilot gives a `-p` run. */
const NON_INTERACTIVE = 'running in non-interactive mode';

export function foldCopilotLine(view: CopilotView, text: string): { view: CopilotView } | { skip: string } {
  const type = eventTypeOf(text);
  if (type !== null && !(FOLDED as readonly string[]).includes(type)) return { view };
  const event = asRecord(parseJsonLine(text));
  if (!event) return { skip: 'not a JSON object' };
  // A subagent's events (they carry its agentId) are not the main conversation's context.
  if (typeof event.agentId === 'string') return { view };
  const data = asRecord(event.data) ?? {};
  const at = typeof event.timestamp === 'string' ? event.timestamp : null;
  switch (event.type) {
    case 'session.start':
      return {
        view: {
          ...view,
          sessionId: stringOr(data.sessionId, view.sessionId),
          model: stringOr(data.selectedModel, view.model),
          cwd: stringOr(asRecord(data.context)?.cwd, view.cwd),
          startedAt: stringOr(data.startTime, at ?? view.startedAt),
        },
      };
    case 'session.resume':
      return { view: { ...view, model: stringOr(data.selectedModel, view.model), cwd: stringOr(asRecord(data.context)?.cwd, view.cwd) } };
    case 'session.model_change':
      return { view: { ...view, model: stringOr(data.newModel, view.model) } };
    case 'session.usage_record':
      return { view: usageRecord(view, asRecord(data.usage)) };
    case 'session.compaction_start':
      return {
        view: {
          ...view,
          lastCompactionPreTokens: numberOr(data.currentTokens, view.lastCompactionPreTokens),
          lastCompactionTrigger: stringOr(data.trigger, null),
        },
      };
    case 'session.compaction_complete': {
      if (data.success !== true) return { view };
      const after = numberOr(data.postCompactionTokens, null);
      return {
        view: {
          ...view,
          compactions: view.compactions + 1,
          lastCompactionAt: at,
          lastCompactionPreTokens: numberOr(data.preCompactionTokens, view.lastCompactionPreTokens),
          reading: after !== null && view.reading ? { ...view.reading, contextTokens: after, outputTokens: 0 } : view.reading,
        },
      };
    }
    case 'system.message':
      if (view.scripted !== undefined || typeof data.content !== 'string') return { view };
      return { view: { ...view, scripted: data.content.includes(NON_INTERACTIVE) } };
    default:
      return { view };
  }
}

function usageRecord(view: CopilotView, usage: Record<string, unknown> | null): CopilotView {
  if (!usage) return view;
  // Only the conversation's own calls: title and naming requests are not its context.
  if (usage.interactionType !== undefined && usage.interactionType !== 'conversation-agent') return view;
  const input = numberOr(usage.inputTokens, null);
  if (input === null) return view;
  const output = numberOr(usage.outputTokens, 0) ?? 0;
  const reading: CopilotReading = { contextTokens: input + output, outputTokens: output, window: numberOr(usage.maxPromptTokens, null) };
  return {
    ...view,
    model: stringOr(usage.model, view.model),
    reading,
    readingCount: view.readingCount + 1,
    firstReadingTokens: view.firstReadingTokens ?? reading.contextTokens,
  };
}

function stringOr(value: unknown, fallback: string | null): string | null {
  return typeof value === 'string' && value.length > 0 ? value : fallback;
}

function numberOr(value: unknown, fallback: number | null): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}
