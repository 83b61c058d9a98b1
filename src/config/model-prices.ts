// What a model's tokens cost, shipped as data beside the window table (agent-models.ts) and
// corrected per model in config, field by field:
// `"agents": {"claude-code": {"models": {"claude-opus-5-5": {"prices": {"cacheWrite1h": 8}}}}}`.
// USD per million tokens, from platform.claude.com's pricing page as it stood on 2026-12-01 (Opus 5.5
// and Sonnet 5.5 read their cache at 0.05× input; Haiku 5.5 costs five times more for a prompt over
// 100k tokens). A model neither the table nor the user prices has no price: ai-zen then says tokens
// only, never a guessed amount.
import type { WatchedAgent as ModelAgent } from './agent-names.js';

export interface ModelPrices {
  readonly input: number;
  readonly output: number;
  /** A write to the 5-minute cache, and to the 1-hour one (Claude Code writes most of its prompt there). */
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
  readonly cacheRead: number;
}

export interface PriceEntry extends ModelPrices {
  /** A request whose prompt (input, cache reads and writes) is over `aboveTokens` costs these instead. */
  readonly longPrompt?: { readonly aboveTokens: number; readonly prices: ModelPrices };
}

const OPUS_4_5_TO_5: PriceEntry = { input: 5, output: 25, cacheWrite5m: 6.25, cacheWrite1h: 10, cacheRead: 0.5 };
const OPUS_5_5: PriceEntry = { input: 4, output: 20, cacheWrite5m: 5, cacheWrite1h: 8, cacheRead: 0.2 };
const SONNET_5_5: PriceEntry = { input: 2, output: 10, cacheWrite5m: 2.5, cacheWrite1h: 4, cacheRead: 0.1 };
const SONNET_4: PriceEntry = { input: 3, output: 15, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3 };
const HAIKU_5_5: PriceEntry = {
  input: 0.1,
  output: 0.5,
  cacheWrite5m: 0.125,
  cacheWrite1h: 0.2,
  cacheRead: 0.01,
  longPrompt: { aboveTokens: 100_000, prices: { input: 0.5, output: 2.5, cacheWrite5m: 0.625, cacheWrite1h: 1, cacheRead: 0.05 } },
};

/**
 * Claude Code's models, by the name its transcript gives (or a prefix of it: the longest that fits
 * wins, so a dated id takes its model's row); `opus`, `sonnet` and `haiku` resolve to the 5.5
 * models in Claude Code 2.1.332, as in the window table. The other agents' models are not priced.
 */
export const PRICE_TABLE: Readonly<Record<ModelAgent, Readonly<Record<string, PriceEntry>>>> = {
  'claude-code': {
    'claude-opus-5-5': OPUS_5_5,
    'claude-opus-5': OPUS_4_5_TO_5,
    'claude-opus-4-8': OPUS_4_5_TO_5,
    'claude-opus-4-7': OPUS_4_5_TO_5,
    'claude-opus-4-6': OPUS_4_5_TO_5,
    'claude-opus-4-5': OPUS_4_5_TO_5,
    'claude-sonnet-5-5': SONNET_5_5,
    'claude-sonnet-5': { ...SONNET_5_5, cacheRead: 0.2 },
    'claude-sonnet-4-6': SONNET_4,
    'claude-sonnet-4-5': SONNET_4,
    'claude-haiku-5-5': HAIKU_5_5,
    'claude-haiku-4-5': { input: 1, output: 5, cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1 },
    opus: OPUS_5_5,
    sonnet: SONNET_5_5,
    haiku: HAIKU_5_5,
  },
  codex: {},
  'qwen-code': {},
  pi: {},
  copilot: {},
  gemini: {},
  cline: {},
  opencode: {},
  kilo: {},
};

/** The user's corrections of one model's prices (config `agents.<agent>.models.<model>.prices`). */
export type PriceCorrection = Partial<ModelPrices>;

const ONE_M_SUFFIX = /\[1m\]$/i;

/**
 * What `model`'s tokens cost for a prompt of `promptTokens`: the user's corrections over the
 * table's row, field by field (a correction holds at every prompt length). A price neither gives
 * is absent: what needs it has no amount.
 */
export function pricesOf(
  agent: ModelAgent,
  model: string | null,
  promptTokens: number,
  corrections: Readonly<Record<string, { readonly prices?: PriceCorrection }>>,
): Partial<ModelPrices> {
  if (model === null || model.trim() === '') return {};
  const name = model.trim().toLowerCase().replace(ONE_M_SUFFIX, '');
  const row = longest(PRICE_TABLE[agent], name);
  const base: Partial<ModelPrices> = row
    ? row.longPrompt && promptTokens > row.longPrompt.aboveTokens
      ? row.longPrompt.prices
      : pick(row)
    : {};
  const lowered = Object.fromEntries(
    Object.entries(corrections).map(([key, facts]) => [key.toLowerCase().replace(ONE_M_SUFFIX, ''), facts]),
  );
  const user = longest(lowered, name)?.prices ?? {};
  return { ...base, ...definedOnly(user) };
}

/** What re-writing a prompt of `tokens` to the cache costs (USD), at the lifetime the client writes; null: no price known. */
export function rewriteDollars(prices: Partial<ModelPrices>, tokens: number, cacheMinutes: 5 | 60 | null): number | null {
  // Unknown lifetime: Claude Code writes to the 1-hour cache on a subscription and when asked to.
  const price = cacheMinutes === 5 ? prices.cacheWrite5m : prices.cacheWrite1h;
  return price === undefined ? null : (tokens * price) / 1_000_000;
}

/** The tokens of one request or more, as the API reports them. */
export interface PricedUsage {
  readonly input: number;
  readonly output: number;
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
  readonly cacheRead: number;
}

/** What a measured usage cost (USD); null when a price it needs is not known. */
export function usageDollars(prices: Partial<ModelPrices>, usage: PricedUsage): number | null {
  let total = 0;
  for (const field of ['input', 'output', 'cacheWrite5m', 'cacheWrite1h', 'cacheRead'] as const) {
    if (usage[field] === 0) continue;
    const price = prices[field];
    if (price === undefined) return null;
    total += (usage[field] * price) / 1_000_000;
  }
  return total;
}

/** `$3.30`, `$0.41`, `$0.004`: two decimals, three under a cent. */
export function formatDollars(dollars: number): string {
  return dollars >= 0.01 || dollars === 0 ? `$${dollars.toFixed(2)}` : `$${dollars.toFixed(3)}`;
}

function longest<T>(table: Readonly<Record<string, T>>, name: string): T | undefined {
  const key = Object.keys(table)
    .filter((candidate) => name.startsWith(candidate))
    .sort((a, b) => b.length - a.length)[0];
  return key === undefined ? undefined : table[key];
}

function pick(entry: PriceEntry): ModelPrices {
  const { input, output, cacheWrite5m, cacheWrite1h, cacheRead } = entry;
  return { input, output, cacheWrite5m, cacheWrite1h, cacheRead };
}

function definedOnly(prices: PriceCorrection): PriceCorrection {
  return Object.fromEntries(Object.entries(prices).filter(([, value]) => value !== undefined));
}
