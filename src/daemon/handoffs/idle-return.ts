// What the person who comes back to a session handed off while idle is told, the same words in the
// notification, `status` and the agent's screen: the document, what continuing fresh from it
// starts with, and what resuming the whole session re-writes to the cache at the model's price
// (config/model-prices.ts). A model with no known price gets tokens only, never a guessed amount.
import type { WatchedAgent } from '../../config/agent-names.js';
import { formatDollars, pricesOf, rewriteDollars, type PriceCorrection } from '../../config/model-prices.js';
import { formatTokens } from '../../format-tokens.js';
import type { SessionState } from '../watching/session-source.js';

export interface IdleReturn {
  readonly document: string;
  /** What a fresh session continuing from the document starts with: its first reading's context and the document; null: not known. */
  readonly freshTokens: number | null;
  /** The whole context resuming re-writes to the cache. */
  readonly resumeTokens: number;
  /** What that costs at the model's price; null: the model's price is not known. */
  readonly resumeDollars: number | null;
}

export function idleReturnOf(input: {
  /** Null: an agent with no price table. */
  readonly agent: WatchedAgent | null;
  readonly state: SessionState;
  readonly document: string;
  /** The document's estimated tokens; null: not known (a document an earlier daemon wrote). */
  readonly documentTokens: number | null;
  readonly cacheMinutes: 5 | 60 | null;
  readonly models: Readonly<Record<string, { readonly prices?: PriceCorrection }>>;
}): IdleReturn {
  const { state } = input;
  const resumeTokens = state.latestUsage?.prompt_tokens ?? 0;
  const prices = input.agent === null ? {} : pricesOf(input.agent, state.model, resumeTokens, input.models);
  return {
    document: input.document,
    freshTokens: input.documentTokens === null ? null : (state.firstReadingTokens ?? 0) + input.documentTokens,
    resumeTokens,
    resumeDollars: rewriteDollars(prices, resumeTokens, input.cacheMinutes),
  };
}

/**
 * `handed off while idle → .ai-zen/handoffs/….md; /clear continues fresh (~22k tokens); resuming
 * this session re-writes ~412k tokens (~$3.30)`. `fresh`: how the agent starts fresh in its own
 * terminal (Claude Code's `/clear`).
 */
export function idleReturnWords(choice: IdleReturn, fresh: string): string {
  return `handed off while idle → ${choice.document}; ${idleReturnChoice(choice, fresh)}`;
}

/** The choice alone: `/clear continues fresh (~22k tokens); resuming this session re-writes ~412k tokens (~$3.30)`. */
export function idleReturnChoice(choice: Omit<IdleReturn, 'document'>, fresh: string): string {
  const freshPart = choice.freshTokens === null ? ' from it' : ` (~${formatTokens(choice.freshTokens)} tokens)`;
  const cost = choice.resumeDollars === null ? '' : ` (~${formatDollars(choice.resumeDollars)})`;
  return `${fresh} continues fresh${freshPart}; resuming this session re-writes ~${formatTokens(choice.resumeTokens)} tokens${cost}`;
}
