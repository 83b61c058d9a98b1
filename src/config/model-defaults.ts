// Context windows of well-known models, so `maxContextTokens` is right without configuration.
// Matched by the longest prefix of the model name (a provider prefix such as `openai/` is ignored).
// When unsure we list the smaller window: migrating early is safe, overflowing is not.

const CONTEXT_WINDOWS: ReadonlyArray<readonly [prefix: string, tokens: number]> = [
  ['gpt-5', 400_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-4', 8_192],
  ['gpt-3.5-turbo', 16_385],
  ['o1-mini', 128_000],
  ['o1', 200_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  ['claude-', 200_000],
  ['deepseek-reasoner', 64_000],
  ['deepseek-chat', 64_000],
  ['deepseek-coder', 128_000],
  ['deepseek', 64_000],
  ['qwen', 131_072],
  ['gemini-', 1_048_576],
  ['llama-3', 128_000],
  ['mistral-large', 128_000],
  ['kimi-k2', 131_072],
  ['glm-4', 128_000],
];

export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** The context window of `model`, or 128000 when the name is not known. */
export function defaultContextWindow(model: string): number {
  const name = model.toLowerCase().split('/').at(-1) ?? '';
  let best: readonly [string, number] | undefined;
  for (const entry of CONTEXT_WINDOWS) {
    if (name.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}
