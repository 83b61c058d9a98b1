// One opencode session's rows folded into session state: the session row (its directory: whether it
// is this repo's; when it began), then its messages in order. An assistant message carries its step's
// `tokens: {input (the uncached part), output, reasoning, cache: {read, write}}`: the context is their
// sum, as opencode's own context gauge counts it, over the window of `provider/model`; an assistant
// message with `summary: true` is opencode's compaction. A message is counted once, on its first
// sight; its tokens are read again as it streams. Pure functions.
import { z } from 'zod';
import type { WatchedAgent } from '../../../config/agent-names.js';
import type { SessionState } from '../../watching/session-source.js';
import {
  detailsOf,
  emptyFoldState,
  type FoldOptions,
  type Measure,
  measureOf,
  observeCompaction,
  observeMeasure,
  observeReading,
  observeStart,
  TokenCount,
} from '../kit/observations.js';
import type { ModelLimit } from './opencode-own-settings.js';

/** What the fold keeps of its own. */
export interface OpencodeDetails {
  /** The last message counted (ids grow with time): a message read again as it streams is not counted twice. */
  readonly lastMessageId: string | null;
  /** Its creation time: the next read starts there (the message still streaming is read again). */
  readonly cursor: number;
}

export interface OpencodeFoldOptions extends FoldOptions {
  readonly agent: WatchedAgent;
  /** opencode's config: each model's window and output limit. */
  readonly limits: ReadonlyMap<string, ModelLimit>;
}

export interface SessionRow {
  readonly directory: string;
  readonly timeCreated: number;
}

export interface MessageRow {
  readonly id: string;
  readonly timeCreated: number;
  readonly data: string;
}

/** opencode reserves the model's output (at most 32,000) below the window before it compacts (1.x). */
const OUTPUT_TOKEN_MAX = 32_000;

const Message = z.looseObject({
  role: z.enum(['user', 'assistant']),
  modelID: z.string().max(200).optional(),
  providerID: z.string().max(200).optional(),
  summary: z.boolean().optional(),
  tokens: z
    .looseObject({
      input: TokenCount,
      output: TokenCount,
      reasoning: TokenCount.optional(),
      cache: z.looseObject({ read: TokenCount, write: TokenCount }).optional(),
    })
    .optional(),
});

export function measureOpencode(model: string | null, options: OpencodeFoldOptions): Measure {
  const limit = model === null ? undefined : options.limits.get(model);
  const output = Math.min(limit?.output ?? OUTPUT_TOKEN_MAX, OUTPUT_TOKEN_MAX);
  return measureOf(options.agent, model, options, { reported: limit?.context ?? null }, (window) =>
    window > output ? Math.floor(((window - output) * 100) / window) : null,
  );
}

export function emptyOpencodeState(file: string, sessionId: string, options: OpencodeFoldOptions): SessionState {
  const details: OpencodeDetails = { lastMessageId: null, cursor: 0 };
  return emptyFoldState(options.agent, file, sessionId, measureOpencode(null, options), details);
}

export function foldOpencodeSession(state: SessionState, row: SessionRow, options: OpencodeFoldOptions): SessionState {
  return observeStart(state, new Date(row.timeCreated).toISOString(), row.directory, options.root);
}

/** One message row; a string says why it was skipped (not opencode's message). */
export function foldOpencodeMessage(state: SessionState, row: MessageRow, options: OpencodeFoldOptions): SessionState | string {
  const details = detailsOf<OpencodeDetails>(state);
  let data: unknown;
  try {
    data = JSON.parse(row.data);
  } catch {
    return 'not JSON';
  }
  const parsed = Message.safeParse(data);
  if (!parsed.success) return 'not an opencode message';
  const message = parsed.data;
  const isNew = details.lastMessageId === null || row.id > details.lastMessageId;
  const nextDetails: OpencodeDetails = isNew ? { lastMessageId: row.id, cursor: row.timeCreated } : details;
  let next: SessionState = { ...state, details: nextDetails as unknown as SessionState['details'] };
  if (isNew) next = { ...next, messageCount: next.messageCount + 1 };
  if (message.role !== 'assistant') return next;
  const model = message.providerID && message.modelID ? `${message.providerID}/${message.modelID}` : next.model;
  if (isNew && message.summary === true)
    next = observeCompaction(next, {
      at: new Date(row.timeCreated).toISOString(),
      preTokens: next.latestUsage?.prompt_tokens ?? null,
      trigger: 'auto',
    });
  const tokens = message.tokens;
  // A step still streaming has no tokens yet: the model is known, the reading comes with its end.
  if (!tokens || tokens.output + tokens.input === 0)
    return model === next.model ? next : observeMeasure(next, measureOpencode(model, options));
  const context = tokens.input + tokens.output + (tokens.reasoning ?? 0) + (tokens.cache?.read ?? 0) + (tokens.cache?.write ?? 0);
  return observeReading(next, {
    ...measureOpencode(model, options),
    promptTokens: context,
    outputTokens: tokens.output,
    totalTokens: context,
    details: nextDetails,
  });
}
