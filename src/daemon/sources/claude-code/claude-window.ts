// Claude Code's transcript never states the window: it names the model. Checked with Claude Code
// 2.1.332: every assistant line carries `requestedModel` (the model asked for, `[1m]` kept, e.g.
// `claude-sonnet-4-6[1m]`; with no `--model` it is claude-opus-5-5), and a `model` attachment at the
// start (`attachment.identity.modelId`, spelt the same); `message.model` is what the API answered,
// without the `[1m]`. The window then comes from the model table (config/agent-models.ts), the
// user's `models` entries, the agent-wide `contextWindow`, and the readings themselves (one above
// the table's window proves a 1M one).
import { type AgentWindowSettings, agentWindow } from '../../../config/agent-models.js';
import { agentThresholds, type SessionThresholds } from '../../watching/session-source.js';

export type ClaudeWindowSettings = AgentWindowSettings;

export function claudeWindow(model: string | null, largestReading: number, settings: ClaudeWindowSettings): number {
  return agentWindow('claude-code', model, { configured: settings.contextWindow, models: settings.models, largestReading }) ?? 200_000;
}

export function claudeThresholds(model: string | null, window: number, settings: ClaudeWindowSettings): SessionThresholds {
  return agentThresholds('claude-code', model, window, settings);
}
