// Gemini CLI's transcript names the model of each reply (`model`), never the window. The client's
// own window is its tokenLimit(model) — 1,048,576 for every Gemini model, 256k for Gemma 4 (0.61) —
// which is the table's (config/agent-models.ts), over which the user's `agents.gemini` settings win.
// It compresses its history at 50% of that window by default (`model.compressionThreshold`); the
// daemon hands off a margin below (session-source.ts: sessionThresholds).
import { type AgentWindowSettings, agentWindow } from '../../../config/agent-models.js';
import { agentThresholds, type SessionThresholds } from '../../watching/session-source.js';

export type GeminiWindowSettings = AgentWindowSettings;

const GEMINI_DEFAULT_WINDOW = 1_048_576;

export function geminiWindow(model: string | null, settings: GeminiWindowSettings): number {
  return agentWindow('gemini', model, { configured: settings.contextWindow, models: settings.models }) ?? GEMINI_DEFAULT_WINDOW;
}

export function geminiThresholds(model: string | null, window: number, settings: GeminiWindowSettings): SessionThresholds {
  return agentThresholds('gemini', model, window, settings);
}
