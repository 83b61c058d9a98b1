// Per-agent settings for the sessions of other agents the daemon watches (X3):
// `"agents": {"claude-code": {...}, "codex": {...}, …}` (one key per agent of agent-names.ts). handoffAt leaves room before the agent's own
// compaction (Claude Code ~73% of the window, Codex ~95%; learned from the compactions the daemon
// sees); warnAt comes before it. handoffAtTokens is an absolute trigger (quality drops
// long before a 1M window is full); the lower of the two points wins.
import path from 'node:path';
import { z } from 'zod';
import type { ModelFacts } from './agent-models.js';
import { WATCHED_AGENTS, type WatchedAgent } from './agent-names.js';
import { chooseSetting, DEFAULT_SOURCE, type ConfigSource } from './config-sources.js';

const Percent = z.number().gt(0).max(100);
const Price = z.number().nonnegative().max(10_000);

export const AgentConfigFile = z.strictObject({
  /** Watch this agent's sessions (default true). */
  enabled: z.boolean().optional(),
  /** Hand off when the context reaches this share of the window, in percent (default 70). */
  handoffAt: Percent.optional(),
  /** Warn at this share of the window, in percent (default 60). */
  warnAt: Percent.optional(),
  /** Hand off once the context reaches this many tokens, whatever the window (the lower of this and handoffAt wins). */
  handoffAtTokens: z.number().int().positive().optional(),
  /** The window in tokens for every model of this agent, over the model table (Claude: 200k, or 1M for the models known to have it). */
  contextWindow: z.number().int().positive().optional(),
  /** Per model (a name or a prefix of one): its window, where the agent compacts it and its prices, over the shipped tables. */
  models: z
    .record(
      z.string().min(1).max(200),
      z.strictObject({
        contextWindow: z.number().int().positive().optional(),
        compactsAt: Percent.optional(),
        /** USD per million tokens, over the shipped price table (model-prices.ts), field by field. */
        prices: z
          .strictObject({
            input: Price.optional(),
            output: Price.optional(),
            cacheWrite5m: Price.optional(),
            cacheWrite1h: Price.optional(),
            cacheRead: Price.optional(),
          })
          .optional(),
      }),
    )
    .optional(),
  /** No handoff in a session's first seconds unless it is over 95% (default 120). */
  graceSeconds: z.number().nonnegative().optional(),
  /** With the agent's hooks installed: how long the daemon waits for the agent to write its own document before writing it offline (default 180). */
  selfDeadlineSeconds: z.number().positive().optional(),
});
export type AgentConfigFile = z.infer<typeof AgentConfigFile>;

/**
 * Hand a session off while it sits idle and its prompt cache is still warm, so the person who comes
 * back can continue fresh from the document instead of paying to re-write the whole context. Only
 * for agents whose cache rules are known (Claude Code); off by default.
 */
export const IdleHandoffConfigFile = z.strictObject({
  enabled: z.boolean().optional(),
  /** Only sessions at least this large (default 150000 tokens): below it a re-write costs about what a document does. */
  minTokens: z.number().int().positive().optional(),
  /** Minutes after the last reply (default: from the cache's lifetime — 45 with a 1-hour cache, never with a 5-minute one). */
  afterMinutes: z
    .number()
    .positive()
    .max(24 * 60)
    .optional(),
  /** The cache's lifetime in minutes when neither the transcript nor the environment says (default: unknown, no idle handoff). */
  cacheMinutes: z.union([z.literal(5), z.literal(60)]).optional(),
  /**
   * Who writes the document (default `offline`: no model call, free). `fork`: a headless fork of the
   * session (`claude -p --resume <id> --fork-session`) writes it on the warm cached prefix, at a cost.
   */
  executor: z.enum(['offline', 'fork']).optional(),
  /** How long the fork may run before it is killed and the offline document written instead (default 300). */
  forkTimeoutSeconds: z.number().positive().max(3600).optional(),
});
export type IdleHandoffConfigFile = z.infer<typeof IdleHandoffConfigFile>;

/**
 * The `claude` the daemon runs (the idle handoff's fork), by its absolute path: a daemon started at
 * login or from another terminal has a PATH of its own. The user's config only (load-config.ts).
 */
const ClaudeCommand = z
  .string()
  .max(4096)
  .refine((value) => path.isAbsolute(value) && !/[\u0000-\u001f]/.test(value), 'an absolute path to the claude executable');

/** Claude Code's settings: every agent's, the idle handoff (its cache lifetime is in its transcript) and the `claude` it runs. */
export const ClaudeCodeConfigFile = AgentConfigFile.extend({
  idleHandoff: IdleHandoffConfigFile.optional(),
  command: ClaudeCommand.optional(),
});

type AgentFileOf<K extends WatchedAgent> = K extends 'claude-code' ? typeof ClaudeCodeConfigFile : typeof AgentConfigFile;

/** `agents.<name>` for every watched agent (agent-names.ts); any other key is refused as a typo. */
export const AgentsConfigFile = z.strictObject(
  Object.fromEntries(
    WATCHED_AGENTS.map((name) => [name, (name === 'claude-code' ? ClaudeCodeConfigFile : AgentConfigFile).optional()]),
  ) as {
    [K in WatchedAgent]: z.ZodOptional<AgentFileOf<K>>;
  },
);
export type AgentsConfigFile = z.infer<typeof AgentsConfigFile>;

export type ForeignAgentName = WatchedAgent;

export interface AgentConfig {
  readonly enabled: boolean;
  readonly handoffAt: number;
  readonly warnAt: number;
  readonly handoffAtTokens: number | null;
  readonly contextWindow: number | null;
  readonly models: Readonly<Record<string, ModelFacts>>;
  readonly graceSeconds: number;
  readonly selfDeadlineSeconds: number;
  /** Null: this agent is never handed off while idle (its cache rules are not known: Codex's eviction is not predictable). */
  readonly idleHandoff: IdleHandoffConfig | null;
  /** The agent's command the daemon runs (Claude Code's fork); null: the one on the daemon's PATH. */
  readonly command: string | null;
}

export interface IdleHandoffConfig {
  readonly enabled: boolean;
  readonly minTokens: number;
  /** Null: follow the cache's lifetime. */
  readonly afterMinutes: number | null;
  readonly cacheMinutes: 5 | 60 | null;
  readonly executor: 'offline' | 'fork';
  readonly forkTimeoutSeconds: number;
}

export const IDLE_HANDOFF_DEFAULTS = { enabled: false, minTokens: 150_000, executor: 'offline', forkTimeoutSeconds: 300 } as const;

export type AgentsConfig = Readonly<Record<ForeignAgentName, AgentConfig>>;

export const AGENT_DEFAULTS = { handoffAt: 70, warnAt: 60 } as const;

/** Where the loader records each agent setting's source (`ai-zen config`). */
export interface AgentSourcesRecord {
  readonly sources: Record<string, ConfigSource>;
  readonly user: ConfigSource;
  readonly project: ConfigSource;
}

function resolveAgent(
  name: ForeignAgentName,
  user: z.infer<typeof ClaudeCodeConfigFile> | undefined,
  project: z.infer<typeof ClaudeCodeConfigFile> | undefined,
  record: AgentSourcesRecord | undefined,
): AgentConfig {
  const sources: Record<string, ConfigSource> = record?.sources ?? {};
  const projectSource = record?.project ?? DEFAULT_SOURCE;
  const userSource = record?.user ?? DEFAULT_SOURCE;
  // The project's setting over the user's, field by field.
  const choose = <K extends keyof AgentConfigFile, T>(field: K, fallback: T): NonNullable<AgentConfigFile[K]> | T =>
    chooseSetting<NonNullable<AgentConfigFile[K]> | T>(
      sources,
      `agents.${name}.${field}`,
      fallback,
      [project?.[field] ?? undefined, projectSource],
      [user?.[field] ?? undefined, userSource],
    );
  const chooseIdle = <K extends keyof IdleHandoffConfigFile, T>(field: K, fallback: T): NonNullable<IdleHandoffConfigFile[K]> | T =>
    chooseSetting<NonNullable<IdleHandoffConfigFile[K]> | T>(
      sources,
      `agents.${name}.idleHandoff.${field}`,
      fallback,
      [project?.idleHandoff?.[field] ?? undefined, projectSource],
      [user?.idleHandoff?.[field] ?? undefined, userSource],
    );
  // Per model, the project's entry over the user's.
  const models = { ...user?.models, ...project?.models };
  for (const model of Object.keys(models))
    sources[`agents.${name}.models.${model}`] = project?.models?.[model] !== undefined ? projectSource : userSource;
  return {
    enabled: choose('enabled', true),
    handoffAt: choose('handoffAt', AGENT_DEFAULTS.handoffAt),
    warnAt: choose('warnAt', AGENT_DEFAULTS.warnAt),
    handoffAtTokens: choose('handoffAtTokens', null),
    contextWindow: choose('contextWindow', null),
    models,
    graceSeconds: choose('graceSeconds', 120),
    selfDeadlineSeconds: choose('selfDeadlineSeconds', 180),
    idleHandoff:
      name === 'claude-code'
        ? {
            enabled: chooseIdle('enabled', IDLE_HANDOFF_DEFAULTS.enabled),
            minTokens: chooseIdle('minTokens', IDLE_HANDOFF_DEFAULTS.minTokens),
            afterMinutes: chooseIdle('afterMinutes', null),
            cacheMinutes: chooseIdle('cacheMinutes', null),
            executor: chooseIdle('executor', IDLE_HANDOFF_DEFAULTS.executor),
            forkTimeoutSeconds: chooseIdle('forkTimeoutSeconds', IDLE_HANDOFF_DEFAULTS.forkTimeoutSeconds),
          }
        : null,
    command:
      name === 'claude-code' ? chooseSetting<string | null>(sources, `agents.${name}.command`, null, [user?.command, userSource]) : null,
  };
}

/** The project's settings win over the user's, field by field; `record` collects where each came from. */
export function resolveAgentsConfig(
  user: AgentsConfigFile | undefined,
  project: AgentsConfigFile | undefined,
  record?: AgentSourcesRecord,
): AgentsConfig {
  return Object.fromEntries(WATCHED_AGENTS.map((name) => [name, resolveAgent(name, user?.[name], project?.[name], record)])) as Record<
    WatchedAgent,
    AgentConfig
  >;
}
