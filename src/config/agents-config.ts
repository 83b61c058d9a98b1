// Per-agent settings for the sessions of other agents the daemon watches (X3, issue 10 §3):
// `"agents": {"claude-code": {...}, "codex": {...}}`. handoffAt leaves room before the agent's own
// compaction (Claude Code ~83% of a 200k window, Codex ~95%); warnAt comes before it.
import { z } from 'zod';

const Percent = z.number().gt(0).max(100);

export const AgentConfigFile = z.strictObject({
  /** Watch this agent's sessions (default true). */
  enabled: z.boolean().optional(),
  /** Hand off when the context reaches this share of the window, in percent (default 70). */
  handoffAt: Percent.optional(),
  /** Warn at this share of the window, in percent (default 60). */
  warnAt: Percent.optional(),
  /** The window in tokens, when the model's default is wrong (Claude: 200k, or 1M for the models known to have it). */
  contextWindow: z.number().int().positive().optional(),
  /** No handoff in a session's first seconds unless it is over 95% (default 120). */
  graceSeconds: z.number().nonnegative().optional(),
  /** With the agent's hooks installed: how long the daemon waits for the agent to write its own document before writing it offline (default 180). */
  selfDeadlineSeconds: z.number().positive().optional(),
});
export type AgentConfigFile = z.infer<typeof AgentConfigFile>;

export const AgentsConfigFile = z.strictObject({
  'claude-code': AgentConfigFile.optional(),
  codex: AgentConfigFile.optional(),
});
export type AgentsConfigFile = z.infer<typeof AgentsConfigFile>;

export type ForeignAgentName = keyof AgentsConfigFile;

export interface AgentConfig {
  readonly enabled: boolean;
  readonly handoffAt: number;
  readonly warnAt: number;
  readonly contextWindow: number | null;
  readonly graceSeconds: number;
  readonly selfDeadlineSeconds: number;
}

export type AgentsConfig = Readonly<Record<ForeignAgentName, AgentConfig>>;

export const AGENT_DEFAULTS = { handoffAt: 70, warnAt: 60 } as const;

function resolveAgent(user: AgentConfigFile | undefined, project: AgentConfigFile | undefined): AgentConfig {
  const merged = { ...user, ...project };
  return {
    enabled: merged.enabled ?? true,
    handoffAt: merged.handoffAt ?? AGENT_DEFAULTS.handoffAt,
    warnAt: merged.warnAt ?? AGENT_DEFAULTS.warnAt,
    contextWindow: merged.contextWindow ?? null,
    graceSeconds: merged.graceSeconds ?? 120,
    selfDeadlineSeconds: merged.selfDeadlineSeconds ?? 180,
  };
}

/** The project's settings win over the user's, field by field. */
export function resolveAgentsConfig(user: AgentsConfigFile | undefined, project: AgentsConfigFile | undefined): AgentsConfig {
  return {
    'claude-code': resolveAgent(user?.['claude-code'], project?.['claude-code']),
    codex: resolveAgent(user?.codex, project?.codex),
  };
}
