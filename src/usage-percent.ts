// One rounding rule for every percentage of a context window a person reads: `status`,
// the chat's status line, notifications, the overflow selector. Rounded down, because every
// threshold is judged exactly (tokens × 100 ≥ threshold × window): rounded down, "70%" is shown once
// the 70% handoff point is really reached and "100%" once the window is really full — rounding to
// the nearest showed 70% a turn before the handoff and 100% under a window not yet full.

/** Share of the window used, in whole percent rounded down (may pass 100); 0 for an unknown or empty window. */
export function usagePercent(promptTokens: number, maxContextTokens: number): number {
  return maxContextTokens > 0 ? Math.floor((promptTokens * 100) / maxContextTokens) : 0;
}
