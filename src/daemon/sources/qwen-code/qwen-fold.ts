// One Qwen Code transcript line folded into the session state (X3), pure. The transcript
// is Claude-shaped JSONL (uuid, parentUuid, sessionId, timestamp, type, cwd on every line) with
// Gemini-shaped messages (`message.parts`). Usage is measured as Qwen measures it: its context is
// the last reply's `usageMetadata.promptTokenCount` (its lastPromptTokenCount; the whole prompt,
// cached tokens included — the OpenAI `prompt_tokens` it was given), falling back to
// `totalTokenCount` as Qwen does. Each assistant line carries `contextWindowSize`, the window Qwen
// itself uses (its rule: below). A `system` line with subtype `chat_compression` is Qwen compacting
// (`systemPayload.info`: originalTokenCount before, `triggerReason` "manual" for /compress). The
// first `cwd` decides whether the session is this repo's. Qwen's transcript does not say whether
// a person or a script (a one-shot `qwen "…"`) runs the turn: qwen-scripted.ts asks Qwen's registry.
import path from 'node:path';
import { z } from 'zod';
import { compiledOnFirstUse } from '../../../compiled-schema.js';
import type { RawLine } from '../../watching/incremental-reader.js';
import type { SessionState } from '../../watching/session-source.js';
import { asRecord } from '../kit/json-record.js';
import {
  CLAUDE_SHAPED_LINE,
  type FoldOptions,
  TokenCount,
  detailsOf,
  emptyFoldState,
  type Measure,
  measureOf,
  notTheAgents,
  observeCompaction,
  observeReading,
  observeStart,
  parseAgentLine,
} from '../kit/observations.js';

const QwenUsage = compiledOnFirstUse(
  z.looseObject({
    promptTokenCount: TokenCount.nullish(),
    candidatesTokenCount: TokenCount.nullish(),
    thoughtsTokenCount: TokenCount.nullish(),
    totalTokenCount: TokenCount.nullish(),
    cachedContentTokenCount: TokenCount.nullish(),
  }),
);

const QwenLine = compiledOnFirstUse(
  z.looseObject({
    ...CLAUDE_SHAPED_LINE,
    model: z.string().max(200).optional(),
    contextWindowSize: z.number().int().positive().max(100_000_000).optional(),
    // Read field by field below: a payload of a shape not known here must not cost the line.
    usageMetadata: z.unknown().optional(),
    systemPayload: z.unknown().optional(),
  }),
);

/** What the fold keeps besides the shared fields (in SessionState.details). */
export type QwenDetails = {
  /** The window Qwen reported last (null: no reply yet). */
  readonly reportedWindow: number | null;
  readonly readings: number;
};

export function emptyQwenState(file: string, options: FoldOptions): SessionState {
  const details: QwenDetails = { reportedWindow: null, readings: 0 };
  return emptyFoldState('qwen-code', file, path.basename(file, '.jsonl'), measure(null, null, options), details);
}

export function foldQwenLine(state: SessionState, raw: RawLine, options: FoldOptions): SessionState | string {
  const line = parseAgentLine(raw.text, QwenLine, 'a Qwen Code transcript line');
  if (typeof line === 'string') return line;
  let next = observeStart(state, line.timestamp, line.cwd, options.root);

  if (line.type === 'system' && line.subtype === 'chat_compression') {
    const info = asRecord(asRecord(line.systemPayload)?.info);
    const preTokens = TokenCount.safeParse(info?.originalTokenCount).data ?? null;
    return observeCompaction(next, { at: line.timestamp ?? null, preTokens, trigger: info?.triggerReason });
  }
  if (line.type === 'user') return { ...next, messageCount: next.messageCount + 1 };
  if (line.type !== 'assistant') return next;
  next = { ...next, messageCount: next.messageCount + 1 };
  if (line.usageMetadata === undefined) return next;
  const usage = QwenUsage().safeParse(line.usageMetadata);
  if (!usage.success) return notTheAgents('a usage Qwen Code', usage.error);
  const prompt = usage.data.promptTokenCount ?? 0;
  // Qwen's own rule: the prompt's count, else the total (a provider that reports only that).
  const reading = prompt > 0 ? prompt : (usage.data.totalTokenCount ?? 0);
  if (reading === 0) return next;
  const details = detailsOf<QwenDetails>(next);
  const reported = line.contextWindowSize ?? details.reportedWindow;
  return observeReading(next, {
    ...measure(line.model ?? next.model, reported, options),
    promptTokens: reading,
    outputTokens: (usage.data.candidatesTokenCount ?? 0) + (usage.data.thoughtsTokenCount ?? 0),
    details: { reportedWindow: reported, readings: details.readings + 1 } satisfies QwenDetails,
  });
}

// Qwen Code states the window in every assistant line of its transcript (`contextWindowSize`, from
// its own model table or the user's setting; checked with 0.24.4: 1,000,000 for its default model
// qwen3.7-max, 262,144 for qwen3-max, 131,072 for gpt-4.1): that number wins over ai-zen's table
// (config/agent-models.ts; 200,000 for a model Qwen does not know, its DEFAULT_TOKEN_LIMIT), which
// only serves before the first reply. Qwen compacts by itself when the context reaches min(85% of
// the window, window − 33,000) (its computeThresholds: 20,000 reserved for the summary plus a
// 13,000 buffer): 85% for a window of 220k and more, less below (74% of 131,072). The user's
// `models` entry and what the daemon learned from Qwen's own compactions come first.
const AUTO_COMPACT_SHARE = 85;
const SUMMARY_RESERVE_AND_BUFFER = 33_000;

function measure(model: string | null, reported: number | null, options: FoldOptions): Measure {
  return measureOf('qwen-code', model, options, { reported }, qwenOwnCompactionPoint);
}

/** Where Qwen compacts a session of this window by itself, in whole percent (rounded down: never above the real point). */
export function qwenOwnCompactionPoint(window: number): number {
  const ceiling = Math.floor(((window - SUMMARY_RESERVE_AND_BUFFER) * 100) / window);
  return ceiling > 0 ? Math.min(AUTO_COMPACT_SHARE, ceiling) : AUTO_COMPACT_SHARE;
}
