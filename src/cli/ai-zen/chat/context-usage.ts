// How full the context window is, for the status line under the prompt and for /status.
// The measure is the next request's prompt as the context guard would judge it: the last real
// prompt_tokens plus an estimate of what was said since (all estimated right after a migration, R25).
import { estimatePromptTokens } from '../../../agent/estimate-tokens.js';
import type { AgentMessage } from '../../../session/session-recorder.js';
import type { Usage } from '../../../session/format.js';
import { usagePercent } from '../../../usage-percent.js';

export interface ContextUsage {
  readonly used: number;
  readonly window: number;
  /** Rounded down; may pass 100. */
  readonly percent: number;
  /** No real usage to start from: every message was estimated. */
  readonly estimated: boolean;
}

export interface UsageSource {
  readonly messages: readonly AgentMessage[];
  readonly lastUsage: Usage | null;
  readonly maxContextTokens: number;
  readonly measuredMessageCount?: number;
}

export function contextUsage(agent: UsageSource): ContextUsage {
  const used = estimatePromptTokens(agent);
  const window = agent.maxContextTokens;
  return { used, window, percent: usagePercent(used, window), estimated: agent.lastUsage === null };
}

/** `950`, `12.3k`, `5k`, `128k`, `1.2M`. */
export function formatTokens(tokens: number): string {
  const oneDecimal = (value: number): string => value.toFixed(1).replace(/\.0$/, '');
  if (tokens < 1000) return String(tokens);
  if (tokens < 1_000_000) {
    const thousands = tokens / 1000;
    return `${thousands >= 100 ? Math.round(thousands) : oneDecimal(thousands)}k`;
  }
  return `${oneDecimal(tokens / 1_000_000)}M`;
}

/** A bar of `width` cells, full past 100%. */
export function contextBar(percent: number, width = 20): string {
  const filled = Math.max(0, Math.min(width, Math.round((percent / 100) * width)));
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
}

/** `41% context · 52.3k/128k` — the words of the status line. */
export function describeUsage(usage: ContextUsage): string {
  const approx = usage.estimated ? '~' : '';
  return `${approx}${usage.percent}% context · ${approx}${formatTokens(usage.used)}/${formatTokens(usage.window)} tokens`;
}
