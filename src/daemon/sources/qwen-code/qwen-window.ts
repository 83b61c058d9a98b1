// Qwen Code states the window in every assistant line of its transcript (`contextWindowSize`, from
// its own model table or the user's setting; checked with 0.24.4: 1,000,000 for its default model
// qwen3.7-max, 262,144 for qwen3-max, 131,072 for gpt-4.1): that number wins over ai-zen's table
// (config/agent-models.ts), which only serves before the first reply. Qwen compacts by itself when
// the context reaches min(85% of the window, window − 33,000) (its computeThresholds: 20,000
// reserved for the summary plus a 13,000 buffer): 85% for a window of 220k and more, less below
// (74% of 131,072). The user's `models` entry and what the daemon learned from Qwen's own
// compactions come first.
import { type AgentWindowSettings, agentWindow } from '../../../config/agent-models.js';
import { agentThresholds, type SessionThresholds } from '../../watching/session-source.js';

export type QwenWindowSettings = AgentWindowSettings;

/** Qwen's own fallback for a model it does not know (its DEFAULT_TOKEN_LIMIT). */
export const QWEN_FALLBACK_WINDOW = 200_000;
const AUTO_COMPACT_SHARE = 85;
const SUMMARY_RESERVE_AND_BUFFER = 33_000;

export function qwenWindow(model: string | null, reported: number | null, settings: QwenWindowSettings): number {
  return agentWindow('qwen-code', model, { configured: settings.contextWindow, models: settings.models, reported }) ?? QWEN_FALLBACK_WINDOW;
}

/** Where Qwen compacts a session of this window by itself, in whole percent (rounded down: never above the real point). */
export function qwenOwnCompactionPoint(window: number): number {
  const ceiling = Math.floor(((window - SUMMARY_RESERVE_AND_BUFFER) * 100) / window);
  return ceiling > 0 ? Math.min(AUTO_COMPACT_SHARE, ceiling) : AUTO_COMPACT_SHARE;
}

export function qwenThresholds(model: string | null, window: number, settings: QwenWindowSettings): SessionThresholds {
  // The user's entry, then what was learned, then Qwen's own rule for this window.
  return agentThresholds('qwen-code', model, window, settings, qwenOwnCompactionPoint(window));
}
