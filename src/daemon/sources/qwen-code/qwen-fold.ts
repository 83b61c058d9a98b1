// One Qwen Code transcript line folded into the session state (X3, issue 24), pure. The transcript
// is Claude-shaped JSONL (uuid, parentUuid, sessionId, timestamp, type, cwd on every line) with
// Gemini-shaped messages (`message.parts`). Usage is measured as Qwen measures it: its context is
// the last reply's `usageMetadata.promptTokenCount` (its lastPromptTokenCount; the whole prompt,
// cached tokens included — the OpenAI `prompt_tokens` it was given), falling back to
// `totalTokenCount` as Qwen does. Each assistant line carries `contextWindowSize`, the window Qwen
// itself uses (qwen-window.ts). A `system` line with subtype `chat_compression` is Qwen compacting
// (`systemPayload.info`: originalTokenCount before, `triggerReason` "manual" for /compress). The
// first `cwd` decides whether the session is this repo's. Qwen's transcript does not say whether
// a person or a script (a one-shot `qwen "…"`) runs the turn: qwen-scripted.ts asks Qwen's registry.
import path from 'node:path';
import { z } from 'zod';
import { compiledOnFirstUse } from '../../../compiled-schema.js';
import type { RawLine } from '../../watching/incremental-reader.js';
import { parseJsonLine } from '../../watching/line-fold-reader.js';
import { emptyAgentState, type SessionState } from '../../watching/session-source.js';
import { asRecord } from '../kit/json-record.js';
import { notTheAgents, observeCompaction, observeReading, observeStart } from '../kit/observations.js';
import { qwenThresholds, qwenWindow, type QwenWindowSettings } from './qwen-window.js';

const Count = z.number().int().nonnegative().max(100_000_000);

const QwenUsage = compiledOnFirstUse(
  z.looseObject({
    promptTokenCount: Count.nullish(),
    candidatesTokenCount: Count.nullish(),
    thoughtsTokenCount: Count.nullish(),
    totalTokenCount: Count.nullish(),
    cachedContentTokenCount: Count.nullish(),
  }),
);

const QwenLine = compiledOnFirstUse(
  z.looseObject({
    type: z.string(),
    subtype: z.string().optional(),
    sessionId: z.string().optional(),
    cwd: z.string().optional(),
    timestamp: z.string().optional(),
    model: z.string().max(200).optional(),
    contextWindowSize: z.number().int().positive().max(100_000_000).optional(),
    // Read field by field below: a payload of a shape not known here must not cost the line.
    usageMetadata: z.unknown().optional(),
    systemPayload: z.unknown().optional(),
  }),
);

export interface QwenFoldOptions extends QwenWindowSettings {
  /** Real path of the repo. */
  readonly root: string;
}

/** What the fold keeps besides the shared fields (in SessionState.details). */
export type QwenDetails = {
  /** The window Qwen reported last (null: no reply yet). */
  readonly reportedWindow: number | null;
  readonly readings: number;
};

export function emptyQwenState(file: string, options: QwenFoldOptions): SessionState {
  const window = qwenWindow(null, null, options);
  const details: QwenDetails = { reportedWindow: null, readings: 0 };
  return emptyAgentState({
    kind: 'qwen-code',
    file,
    sessionId: path.basename(file, '.jsonl'),
    window,
    thresholds: qwenThresholds(null, window, options),
    details,
  });
}

export function qwenDetails(state: SessionState): QwenDetails {
  return state.details as unknown as QwenDetails;
}

export function foldQwenLine(state: SessionState, raw: RawLine, options: QwenFoldOptions): SessionState | string {
  const value = parseJsonLine(raw.text);
  if (value === undefined) return 'not JSON';
  const parsed = QwenLine().safeParse(value);
  if (!parsed.success) return 'not a Qwen Code transcript line';
  const line = parsed.data;
  let next = observeStart(state, line.timestamp, line.cwd, options.root);

  if (line.type === 'system' && line.subtype === 'chat_compression') {
    const info = asRecord(asRecord(line.systemPayload)?.info);
    const preTokens = Count.safeParse(info?.originalTokenCount).data ?? null;
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
  const model = line.model ?? next.model;
  const details = qwenDetails(next);
  const reported = line.contextWindowSize ?? details.reportedWindow;
  const window = qwenWindow(model, reported, options);
  return observeReading(next, {
    model,
    window,
    thresholds: qwenThresholds(model, window, options),
    promptTokens: reading,
    outputTokens: (usage.data.candidatesTokenCount ?? 0) + (usage.data.thoughtsTokenCount ?? 0),
    details: { reportedWindow: reported, readings: details.readings + 1 } satisfies QwenDetails,
  });
}
