// Claude Code's transcript never states the window: it comes from the model. 200k, unless the model
// is known to run with 1M (the `[1m]` variants Claude Code offers) or a reading already went past
// 200k (only a 1M window allows that); the config's agents.claude-code.contextWindow wins.
export const DEFAULT_WINDOW = 200_000;
export const LARGE_WINDOW = 1_000_000;

/** Claude Code compacts by itself at about this share of the window. */
export const CLAUDE_COMPACTS_AT = 83;

export function claudeWindow(model: string | null, largestReading: number, configured: number | null): number {
  if (configured !== null) return configured;
  if (model !== null && /\[1m\]|-1m\b/i.test(model)) return LARGE_WINDOW;
  return largestReading > DEFAULT_WINDOW ? LARGE_WINDOW : DEFAULT_WINDOW;
}
