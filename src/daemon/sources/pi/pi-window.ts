// pi's transcript names the model (`provider` and `modelId` of a model_change line, `provider` and
// `model` of every assistant message), never the window. The window comes, strongest first, from
// the user's ai-zen config (`agents.pi.contextWindow`, `agents.pi.models`), pi's own models.json
// (a custom model's `contextWindow`, 128k when it names none: pi's rule), then the model table
// (config/agent-models.ts, keyed `provider/model` as pi's `--model` spells it). pi compacts by
// itself once the context passes the window less `compaction.reserveTokens` (16,384 by default,
// from its settings.json): that point, in percent, is where it compacts unless the daemon learned
// another.
import { type AgentWindowSettings, agentWindow } from '../../../config/agent-models.js';
import { agentThresholds, type SessionThresholds } from '../../watching/session-source.js';

/** pi's default `compaction.reserveTokens`. */
export const PI_RESERVE_TOKENS = 16_384;

export interface PiWindowSettings extends AgentWindowSettings {
  /** Windows pi's own models.json gives, by `provider/model` (lower case). */
  readonly piModels?: ReadonlyMap<string, number>;
  /** pi's `compaction` settings: where it compacts (reserveTokens below the window), and whether it does. */
  readonly reserveTokens?: number;
  readonly compactionEnabled?: boolean;
}

/** `anthropic/claude-opus-4-7`: the model as pi's `--model` names it. */
export function piModelName(provider: string | undefined, model: string): string {
  return provider ? `${provider}/${model}` : model;
}

export function piWindow(model: string | null, settings: PiWindowSettings): number | null {
  const reported = model === null ? null : (settings.piModels?.get(model.toLowerCase()) ?? null);
  return agentWindow('pi', model, { configured: settings.contextWindow, models: settings.models, reported });
}

export function piThresholds(model: string | null, window: number | null, settings: PiWindowSettings): SessionThresholds {
  const reserve = settings.reserveTokens ?? PI_RESERVE_TOKENS;
  // pi compacts when the context is above window − reserve; with compaction off, only the window stops it.
  const own =
    window === null || window <= 0 ? null : settings.compactionEnabled === false ? 100 : Math.floor(((window - reserve) * 100) / window);
  return agentThresholds('pi', model, window, settings, own);
}
