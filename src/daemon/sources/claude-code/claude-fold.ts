// One Claude Code transcript line folded into the session state (X3), pure. Usage is measured as
// Claude Code measures it: the last main-chain `assistant` line carrying `message.usage`, context =
// input_tokens + cache_creation_input_tokens + cache_read_input_tokens. One reply is written as one
// line per content block, all with the same message.id and usage: it counts once. Sidechain
// (subagent) lines, `<synthetic>` model lines and API-error lines are no readings. A `system` line
// with subtype `compact_boundary` is Claude compacting (its `compactMetadata`: `trigger` auto or
// manual, `preTokens` the context before it). The first `cwd` decides whether the session is this repo's.
// A user line's `entrypoint` says who runs the turn: `sdk-cli` is `claude -p`, `sdk-ts`/`sdk-py` the
// Agent SDK, `cli` a person at the terminal. A compaction right after an API error that said the
// prompt is too long is `reactive`: Claude compacted to recover, not at its own point.
// The transcript never states the window: it names the model. Checked with Claude Code 2.1.332: every
// assistant line carries `requestedModel` (the model asked for, `[1m]` kept, e.g.
// `claude-sonnet-4-6[1m]`; with no `--model` it is claude-opus-5-5), and a `model` attachment at the
// start (`attachment.identity.modelId`, spelt the same); `message.model` is what the API answered,
// without the `[1m]`. The window then comes from the model table (config/agent-models.ts), the
// user's `models` entries, the agent-wide `contextWindow`, and the readings themselves (one above
// the table's window proves a 1M one).
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
  observeMeasure,
  observeReading,
  observeStart,
  parseAgentLine,
} from '../kit/observations.js';
import { observeClaudeTurn } from './claude-turn.js';

/** What the API answers a prompt over the window (Claude Code shows it as an API error line). */
const PROMPT_TOO_LONG = /prompt is too long/i;

const ClaudeUsage = compiledOnFirstUse(
  z.looseObject({
    input_tokens: TokenCount,
    cache_creation_input_tokens: TokenCount.nullish(),
    cache_read_input_tokens: TokenCount.nullish(),
    output_tokens: TokenCount.nullish(),
  }),
);

const ClaudeLine = compiledOnFirstUse(
  z.looseObject({
    ...CLAUDE_SHAPED_LINE,
    isSidechain: z.boolean().optional(),
    isApiErrorMessage: z.boolean().optional(),
    entrypoint: z.string().optional(),
    requestedModel: z.string().max(200).optional(),
    // Read field by field below: an attachment or metadata of a shape not known here must not cost the line.
    compactMetadata: z.unknown().optional(),
    attachment: z.unknown().optional(),
    message: z
      .looseObject({
        id: z.string().optional(),
        model: z.string().optional(),
        usage: z.unknown().optional(),
      })
      .optional(),
  }),
);

/** What the fold keeps besides the shared fields (in SessionState.details). */
export type ClaudeDetails = {
  readonly lastMessageId: string | null;
  /** The last reply was the API refusing a prompt too long: a compaction now is forced, not chosen. */
  readonly promptTooLong?: boolean;
  /** Distinct readings seen. */
  readonly readings: number;
  readonly largestReading: number;
};

export function emptyClaudeState(file: string, options: FoldOptions): SessionState {
  const details: ClaudeDetails = { lastMessageId: null, readings: 0, largestReading: 0 };
  return emptyFoldState('claude-code', file, path.basename(file, '.jsonl'), measure(null, 0, options), details);
}

const claudeDetails = detailsOf<ClaudeDetails>;

export function foldClaudeLine(state: SessionState, raw: RawLine, options: FoldOptions): SessionState | string {
  const line = parseAgentLine(raw.text, ClaudeLine, 'a Claude Code transcript line');
  if (typeof line === 'string') return line;
  // Where the turn stands (the idle handoff's reading), whatever else the line is.
  let next = observeClaudeTurn(observeStart(state, line.timestamp, line.cwd, options.root), line);
  if (line.sessionId && line.sessionId !== next.sessionId && next.messageCount === 0) next = { ...next, sessionId: line.sessionId };

  if (line.type === 'system' && line.subtype === 'compact_boundary') {
    const meta = asRecord(line.compactMetadata);
    const trigger = claudeDetails(next).promptTooLong ? 'reactive' : meta?.trigger;
    next = { ...next, details: { ...claudeDetails(next), promptTooLong: false } };
    return observeCompaction(next, { at: line.timestamp ?? null, preTokens: TokenCount.safeParse(meta?.preTokens).data ?? null, trigger });
  }
  // The model the session runs (at its start, and after a `/model`): the window is known before the first reply.
  const attachment = asRecord(line.attachment);
  const modelId = attachment?.type === 'model' ? asRecord(attachment.identity)?.modelId : undefined;
  if (line.type === 'attachment' && typeof modelId === 'string' && modelId.length <= 200)
    return modelId === next.model ? next : observeMeasure(next, measure(modelId, claudeDetails(next).largestReading, options));
  if (line.type === 'user') {
    if (line.isSidechain) return next;
    const scripted = line.entrypoint === undefined ? next.scripted : line.entrypoint.startsWith('sdk');
    return { ...next, messageCount: next.messageCount + 1, ...(scripted === undefined ? {} : { scripted }) };
  }
  if (line.type !== 'assistant') return next;
  if (line.isSidechain) return next;
  const message = line.message;
  const details = claudeDetails(next);
  // Same reply, another content block: the usage was counted with its first line.
  if (message?.id && message.id === details.lastMessageId) return next;
  next = { ...next, messageCount: next.messageCount + 1 };
  if (line.isApiErrorMessage && PROMPT_TOO_LONG.test(JSON.stringify(message?.content ?? '')))
    return { ...next, details: { ...details, promptTooLong: true } };
  if (line.isApiErrorMessage || message?.model === '<synthetic>' || message?.usage === undefined) return next;
  const usage = ClaudeUsage().safeParse(message.usage);
  if (!usage.success) return notTheAgents('a usage Claude Code', usage.error);
  const reading = usage.data.input_tokens + (usage.data.cache_creation_input_tokens ?? 0) + (usage.data.cache_read_input_tokens ?? 0);
  // What was asked for keeps `[1m]`; what the API answered does not.
  const model = line.requestedModel ?? next.model ?? message.model ?? null;
  const largestReading = Math.max(details.largestReading, reading);
  return observeReading(next, {
    ...measure(model, largestReading, options),
    promptTokens: reading,
    outputTokens: usage.data.output_tokens ?? 0,
    details: { lastMessageId: message.id ?? null, readings: details.readings + 1, largestReading } satisfies ClaudeDetails,
  });
}

function measure(model: string | null, largestReading: number, options: FoldOptions): Measure {
  return measureOf('claude-code', model, options, { largestReading });
}
