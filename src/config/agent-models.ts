// The windows (and, where known, the compaction points) of the models other agents run, shipped as
// data. A model is matched by the longest entry its name starts with; a name ending
// in `[1m]` (Claude Code's 1M-context variants, as its transcript's `requestedModel` and `model`
// attachment spell them) has a 1M window whatever the table says. A user extends or corrects the
// table per model in config: `"agents": {"claude-code": {"models": {"claude-opus-6": {"contextWindow": 1000000}}}}`.
// What a transcript says beats the table (Codex's `model_context_window`; a Claude reading above
// the table's window proves the larger one); the table beats a guess.
import type { WatchedAgent } from './agent-names.js';
import type { PriceCorrection } from './model-prices.js';

/** The agents whose models the table knows (config `agents.<name>`). */
export type ModelAgent = WatchedAgent;

export interface ModelFacts {
  /** The window in tokens. */
  readonly contextWindow?: number;
  /** Where the agent compacts by itself, in percent of the window (learned points take over, compaction-points.ts). */
  readonly compactsAt?: number;
  /** The user's corrections of the price table (model-prices.ts), USD per million tokens. */
  readonly prices?: PriceCorrection;
}

/** What decides a watched session's window and thresholds, the same fields for every agent (from agents.<agent>). */
export interface AgentWindowSettings {
  /** handoffAt, warnAt (percent of the window), handoffAtTokens (absolute). */
  readonly handoffAt: number;
  readonly warnAt: number;
  readonly handoffAtTokens: number | null;
  /** agents.<agent>.contextWindow: the window for every model, over what the agent reports and the table. */
  readonly contextWindow: number | null;
  /** agents.<agent>.models: per model, over what the agent reports and the table. */
  readonly models: Readonly<Record<string, ModelFacts>>;
  /** Where the agent was seen compacting this model by itself (compaction-points.ts); null: never seen. */
  readonly learnedPoint?: (model: string | null) => number | null;
}

export const ONE_MILLION = 1_000_000;

/** The models opencode and Kilo Code run most, by `provider/model` (models.dev's windows). */
const OPENCODE_MODELS: Readonly<Record<string, ModelFacts>> = {
  'anthropic/claude-': { contextWindow: 200_000 },
  'anthropic/claude-opus-4-7': { contextWindow: ONE_MILLION },
  'anthropic/claude-sonnet-4-6': { contextWindow: ONE_MILLION },
  'openai/gpt-5': { contextWindow: 400_000 },
  'openai/gpt-4.1': { contextWindow: 1_047_576 },
  'google/gemini-': { contextWindow: 1_048_576 },
};

/**
 * Checked with Claude Code 2.1.332: with no `--model` it runs claude-opus-5-5, and the opus, sonnet
 * and haiku aliases resolve to claude-*-5-5 — all 1M; so do opus 4.7 and 4.8. Only the 4.6 models
 * and Sonnet 4.5 (and the older ones) are 200k. Claude compacts by itself at ~73% of the window
 * (it was ~83% until late 2026, and moved without notice: the daemon learns the real point).
 */
export const MODEL_TABLE: Readonly<Record<ModelAgent, Readonly<Record<string, ModelFacts>>>> = {
  'claude-code': {
    'claude-': { contextWindow: 200_000 },
    'claude-opus-5': { contextWindow: ONE_MILLION },
    'claude-sonnet-5': { contextWindow: ONE_MILLION },
    'claude-haiku-5': { contextWindow: ONE_MILLION },
    'claude-opus-4-7': { contextWindow: ONE_MILLION },
    'claude-opus-4-8': { contextWindow: ONE_MILLION },
    'claude-opus-4-6': { contextWindow: 200_000 },
    'claude-sonnet-4-6': { contextWindow: 200_000 },
    'claude-sonnet-4-5': { contextWindow: 200_000 },
    opus: { contextWindow: ONE_MILLION },
    sonnet: { contextWindow: ONE_MILLION },
    haiku: { contextWindow: ONE_MILLION },
  },
  // Codex states the window in every reading (`model_context_window`, 95% of the model's): the
  // table is the fallback before the first one. Codex compacts at 90% of the full window, ~95% of that.
  codex: {
    'gpt-5': { contextWindow: 258_400 },
    'gpt-4.1': { contextWindow: 995_197 },
    o3: { contextWindow: 190_000 },
    'o4-mini': { contextWindow: 190_000 },
  },
  // Qwen Code states the window in every reply (`contextWindowSize`): the table is the fallback
  // before the first one, Qwen's own (0.24.4) for its models; it compacts at 85% of a large window.
  'qwen-code': {
    qwen: { contextWindow: 262_144 },
    'qwen3.': { contextWindow: ONE_MILLION },
    'qwen3-coder-plus': { contextWindow: ONE_MILLION },
    'qwen3-coder-flash': { contextWindow: ONE_MILLION },
    'coder-model': { contextWindow: ONE_MILLION },
  },
  // pi names a model `provider/model` (its `--model` syntax); its own catalog (pi-ai 0.73) gives these
  // windows. Its default is the first provider with a key: anthropic/claude-opus-4-7, openai/gpt-5.4, …
  pi: {
    'anthropic/claude-': { contextWindow: 200_000 },
    'anthropic/claude-opus-4-6': { contextWindow: ONE_MILLION },
    'anthropic/claude-opus-4-7': { contextWindow: ONE_MILLION },
    'anthropic/claude-sonnet-4-6': { contextWindow: ONE_MILLION },
    'openai/gpt-5': { contextWindow: 400_000 },
    'openai/gpt-5.4': { contextWindow: 272_000 },
    'openai/gpt-5.5': { contextWindow: 272_000 },
    'openai/gpt-4.1': { contextWindow: 1_047_576 },
    'openai-codex/gpt-5': { contextWindow: 272_000 },
    'google/gemini-': { contextWindow: 1_048_576 },
    'deepseek/deepseek-v4': { contextWindow: ONE_MILLION },
  },
  // Copilot CLI states its prompt budget (`maxPromptTokens`) with every model call; the table is for
  // before the first one (measured with 1.0.102 over its BYOK providers). It compacts at 95% of it.
  copilot: { 'claude-sonnet-4.5': { contextWindow: 168_000 }, 'gpt-5.4': { contextWindow: 922_000 } },
  // Gemini CLI 0.61 (its tokenLimit): 1,048,576 for every Gemini model, 256k for Gemma 4; it
  // compresses its history at 50% of the window (model.compressionThreshold, default 0.5).
  gemini: { 'gemini-': { contextWindow: 1_048_576 }, 'gemma-4': { contextWindow: 256_000 } },
  // Cline CLI 3.0.65 compacts at 90% of a model's input budget, 128k for a model it has no facts of
  // (an OpenAI-compatible provider's); a window set in config beats that.
  cline: {},
  // opencode (and Kilo Code, which runs it) names a model `provider/model`; the window of a model its
  // provider config gives (`limit.context`) beats this table, which is for the usual ones.
  opencode: OPENCODE_MODELS,
  kilo: OPENCODE_MODELS,
};

/** The agent's window when the model is unknown (Claude: 200k, the smaller: handing off early is safe). */
export const AGENT_DEFAULT_WINDOW: Readonly<Record<ModelAgent, number | null>> = {
  'claude-code': 200_000,
  codex: null,
  'qwen-code': 200_000,
  pi: 128_000,
  copilot: null,
  gemini: 1_048_576,
  cline: 128_000,
  opencode: null,
  kilo: null,
};
/** Where the agent compacts by itself, in percent of the window, until the daemon has seen it do so. */
export const AGENT_DEFAULT_COMPACTS_AT: Readonly<Record<ModelAgent, number>> = {
  'claude-code': 73,
  codex: 95,
  'qwen-code': 85,
  pi: 87,
  copilot: 95,
  gemini: 50,
  cline: 90,
  // opencode compacts once a reading leaves less than min(20,000, the model's output limit) of the window.
  opencode: 90,
  kilo: 90,
};

const ONE_M_SUFFIX = /\[1m\]$/i;

/** What the window of `model` is, strongest first: the agent-wide `contextWindow`, the user's entry for the model, what the transcript reports (Codex), the table (Claude: a reading above it proves the 1M window). */
export function agentWindow(
  agent: ModelAgent,
  model: string | null,
  known: {
    readonly configured: number | null;
    readonly models: Readonly<Record<string, ModelFacts>>;
    readonly reported?: number | null;
    readonly largestReading?: number;
  },
): number | null {
  if (known.configured !== null) return known.configured;
  const user = userFacts(known.models, model).contextWindow;
  if (user !== undefined) return user;
  if (known.reported) return known.reported;
  const name = (model ?? '').trim();
  const window = ONE_M_SUFFIX.test(name)
    ? ONE_MILLION
    : (matching(MODEL_TABLE[agent], name.toLowerCase()).contextWindow ?? AGENT_DEFAULT_WINDOW[agent]);
  const largest = known.largestReading ?? 0;
  return window !== null && largest > window ? Math.max(ONE_MILLION, largest) : window;
}

/** Where the agent compacts `model` by itself, in percent: the user's entry, else what the daemon learned, else the table. */
export function agentCompactsAt(
  agent: ModelAgent,
  model: string | null,
  models: Readonly<Record<string, ModelFacts>>,
  learned: number | null,
): number {
  const name = (model ?? '').trim().toLowerCase();
  return (
    userFacts(models, model).compactsAt ??
    learned ??
    matching(MODEL_TABLE[agent], name.replace(ONE_M_SUFFIX, '')).compactsAt ??
    AGENT_DEFAULT_COMPACTS_AT[agent]
  );
}

function userFacts(models: Readonly<Record<string, ModelFacts>>, model: string | null): ModelFacts {
  const lowered = Object.fromEntries(Object.entries(models).map(([key, facts]) => [key.toLowerCase(), facts]));
  return model === null ? {} : matching(lowered, model.trim().toLowerCase());
}

/** Every entry `name` starts with, the longer over the shorter, field by field (`claude-opus-5` over `claude-`). */
function matching(table: Readonly<Record<string, ModelFacts>>, name: string): ModelFacts {
  const keys = Object.keys(table)
    .filter((key) => name.startsWith(key))
    .sort((a, b) => a.length - b.length);
  return Object.assign({}, ...keys.map((key) => table[key])) as ModelFacts;
}
