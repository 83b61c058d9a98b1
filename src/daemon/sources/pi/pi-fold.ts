// One line of a pi session file folded into the session state (X3), pure. Measured as pi measures
// itself (its footer and `ctx.getContextUsage()`, 0.73): the last assistant message that was neither
// aborted nor an error gives the reading — `usage.totalTokens`, or input + output + cacheRead +
// cacheWrite when that is 0 — and every message after it adds pi's own estimate (characters / 4;
// an image 1,200 tokens). After a `compaction` line pi counts nothing until the next reply: the
// reading is cleared (and so is the crossing) until then. The header line (`type: session`) names
// the working directory, which decides whether the session is this repo's.
// The transcript names the model (`provider` and `modelId` of a model_change line, `provider` and
// `model` of every assistant message), never the window: that comes, strongest first, from the
// user's ai-zen config (`agents.pi`), pi's own models.json (pi-own-settings.ts), then the model table
// (keyed `provider/model` as pi's `--model` spells it). pi compacts by itself once the context passes
// the window less `compaction.reserveTokens`: there, unless the daemon learned another point.
import { z } from 'zod';
import { compiledOnFirstUse } from '../../../compiled-schema.js';
import type { RawLine } from '../../watching/incremental-reader.js';
import type { SessionState } from '../../watching/session-source.js';
import { asRecord } from '../kit/json-record.js';
import {
  type FoldOptions,
  TokenCount,
  detailsOf,
  emptyFoldState,
  type Measure,
  measured,
  measureOf,
  notTheAgents,
  observeCompaction,
  observeMeasure,
  observeReading,
  observeStart,
  parseAgentLine,
} from '../kit/observations.js';
import { piSessionIdFromName } from './pi-paths.js';

const Name = z.string().min(1).max(200);

const PiUsage = compiledOnFirstUse(
  z.looseObject({
    input: TokenCount,
    output: TokenCount,
    cacheRead: TokenCount.optional(),
    cacheWrite: TokenCount.optional(),
    totalTokens: TokenCount.optional(),
  }),
);

const PiLine = compiledOnFirstUse(
  z.looseObject({
    type: z.string(),
    timestamp: z.string().max(64).optional(),
    cwd: z.string().max(4096).optional(),
    provider: Name.optional(),
    modelId: Name.optional(),
    tokensBefore: z.unknown().optional(),
    fromHook: z.unknown().optional(),
    // Read field by field below: a message of a shape not known here must not cost the line.
    message: z.unknown().optional(),
  }),
);

/** pi's default `compaction.reserveTokens`. */
const PI_RESERVE_TOKENS = 16_384;

export interface PiFoldOptions extends FoldOptions {
  /** Windows pi's own models.json gives, by `provider/model` (lower case). */
  readonly piModels?: ReadonlyMap<string, number>;
  /** pi's `compaction` settings: where it compacts (reserveTokens below the window), and whether it does. */
  readonly reserveTokens?: number;
  readonly compactionEnabled?: boolean;
}

/** What the fold keeps besides the shared fields (in SessionState.details). */
export type PiDetails = {
  /** The last reply's reading, and pi's estimate of the messages since (null: none since the last compaction). */
  readonly usageTokens: number | null;
  readonly trailingTokens: number;
  readonly readings: number;
};

export function emptyPiState(file: string, options: PiFoldOptions): SessionState {
  const details: PiDetails = { usageTokens: null, trailingTokens: 0, readings: 0 };
  return emptyFoldState('pi', file, piSessionIdFromName(file), measure(null, options), details);
}

const piDetails = detailsOf<PiDetails>;

export function foldPiLine(state: SessionState, raw: RawLine, options: PiFoldOptions): SessionState | string {
  const line = parseAgentLine(raw.text, PiLine, 'a pi session line');
  if (typeof line === 'string') return line;
  const details = piDetails(state);
  switch (line.type) {
    case 'session':
      // pi's header names the folder the session runs in, and when it started.
      return state.cwd !== null || !line.cwd ? state : observeStart(state, line.timestamp, line.cwd, options.root);
    case 'model_change':
      return line.modelId ? withModel(state, piModelName(line.provider, line.modelId), options) : state;
    case 'compaction':
      // pi's context is unknown after a compaction until its next real reading.
      return observeCompaction(
        state,
        {
          at: line.timestamp ?? null,
          preTokens: TokenCount.safeParse(line.tokensBefore).data ?? null,
          trigger: line.fromHook === true ? 'extension' : null,
        },
        { details: { ...details, usageTokens: null, trailingTokens: 0 } satisfies PiDetails },
      );
    case 'custom_message':
    case 'branch_summary':
      return withTrailing(state, estimateTokens({ role: line.type === 'branch_summary' ? 'branchSummary' : 'custom', ...line }));
    case 'message':
      return foldMessage(state, asRecord(line.message), options);
    default:
      return state;
  }
}

function foldMessage(state: SessionState, message: Record<string, unknown> | null, options: PiFoldOptions): SessionState | string {
  if (message === null) return 'a message line without its message';
  const role = message.role;
  const counted = role === 'user' || role === 'assistant' ? { ...state, messageCount: state.messageCount + 1 } : state;
  const usable = role === 'assistant' && message.stopReason !== 'aborted' && message.stopReason !== 'error' && message.usage !== undefined;
  if (!usable) return withTrailing(counted, estimateTokens(message));
  const usage = PiUsage().safeParse(message.usage);
  if (!usage.success) return notTheAgents('a usage pi', usage.error);
  const { input, output, cacheRead = 0, cacheWrite = 0, totalTokens = 0 } = usage.data;
  const reading = totalTokens || input + output + cacheRead + cacheWrite;
  // pi trusts no reading of 0 after a compaction (its context is unknown until a real one).
  if (reading === 0) return withTrailing(counted, estimateTokens(message));
  const model =
    typeof message.model === 'string' && Name.safeParse(message.model).success
      ? piModelName(typeof message.provider === 'string' ? message.provider : undefined, message.model)
      : counted.model;
  const modelled = model === counted.model ? counted : withModel(counted, model!, options);
  return observeReading(modelled, {
    model: modelled.model,
    window: modelled.maxContextTokens,
    thresholds: modelled.thresholds!,
    promptTokens: reading,
    outputTokens: output,
    totalTokens: reading,
    details: { usageTokens: reading, trailingTokens: 0, readings: piDetails(modelled).readings + 1 } satisfies PiDetails,
  });
}

/** A message after the last reading: pi adds its estimate to the reading (none before the first reading, or after a compaction). */
function withTrailing(state: SessionState, tokens: number): SessionState {
  const details = piDetails(state);
  if (details.usageTokens === null || tokens === 0 || state.latestUsage === null) return state;
  const trailingTokens = details.trailingTokens + tokens;
  const total = details.usageTokens + trailingTokens;
  return measured({
    ...state,
    latestUsage: { ...state.latestUsage, prompt_tokens: total, total_tokens: total },
    details: { ...details, trailingTokens } satisfies PiDetails,
  });
}

function withModel(state: SessionState, model: string, options: PiFoldOptions): SessionState {
  return model === state.model ? state : observeMeasure(state, measure(model, options));
}

/** `anthropic/claude-opus-4-7`: the model as pi's `--model` names it. */
function piModelName(provider: string | undefined, model: string): string {
  return provider ? `${provider}/${model}` : model;
}

function measure(model: string | null, options: PiFoldOptions): Measure {
  const reported = model === null ? null : (options.piModels?.get(model.toLowerCase()) ?? null);
  const reserve = options.reserveTokens ?? PI_RESERVE_TOKENS;
  // pi compacts when the context is above window − reserve; with compaction off, only the window stops it.
  return measureOf('pi', model, options, { reported }, (window) =>
    window <= 0 ? null : options.compactionEnabled === false ? 100 : Math.floor(((window - reserve) * 100) / window),
  );
}

/** pi's own estimate of a message (compaction.ts `estimateTokens`, 0.73): characters / 4, rounded up. */
export function estimateTokens(message: Record<string, unknown>): number {
  let chars = 0;
  const blocks = (content: unknown, images: boolean): void => {
    if (typeof content === 'string') chars += content.length;
    else if (Array.isArray(content))
      for (const block of content as Record<string, unknown>[]) {
        if (block?.type === 'text' && typeof block.text === 'string') chars += block.text.length;
        if (images && block?.type === 'image') chars += 4800;
      }
  };
  switch (message.role) {
    case 'user':
      blocks(message.content, false);
      break;
    case 'assistant':
      if (Array.isArray(message.content))
        for (const block of message.content as Record<string, unknown>[]) {
          if (block?.type === 'text' && typeof block.text === 'string') chars += block.text.length;
          else if (block?.type === 'thinking' && typeof block.thinking === 'string') chars += block.thinking.length;
          else if (block?.type === 'toolCall' && typeof block.name === 'string')
            chars += block.name.length + (JSON.stringify(block.arguments ?? null)?.length ?? 0);
        }
      break;
    case 'custom':
    case 'toolResult':
      blocks(message.content, true);
      break;
    case 'bashExecution':
      chars = String(message.command ?? '').length + String(message.output ?? '').length;
      break;
    case 'branchSummary':
    case 'compactionSummary':
      chars = String(message.summary ?? '').length;
      break;
    default:
      return 0;
  }
  return Math.ceil(chars / 4);
}
