// The config file format (`.ai-zen/config.json` in the project, `$AI_ZEN_HOME/config.json` for the user).
// Strict: an unknown field is far more often a typo than a feature from a newer version.
import { z } from 'zod';
import { ExecutorName } from '../session/format.js';
import { AgentsConfigFile } from './agents-config.js';

/** A config file is a few hundred bytes; a larger one (or a link to /dev/zero) is refused, not read whole. */
export const CONFIG_MAX_BYTES = 1024 * 1024;

export const ConfigFile = z.strictObject({
  $schema: z.string().optional(),
  /** Model name sent to the endpoint, e.g. `gpt-4o`. */
  model: z.string().min(1).optional(),
  /** OpenAI-compatible endpoint, e.g. `http://127.0.0.1:11434/v1`. */
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
  /** Only in the user config: a project config is committed with the code. */
  apiKey: z.string().min(1).optional(),
  /** The model's context window in tokens; defaults from the model name. */
  maxContextTokens: z.number().int().positive().optional(),
  /** Handoff executor used by default (R9–R11). */
  /** Not `fork`: that is an idle Claude Code session's executor (agents.claude-code.idleHandoff.executor). */
  executor: ExecutorName.exclude(['fork']).optional(),
  /** How long one `exec` tool call may run. */
  execTimeoutMs: z.number().int().positive().optional(),
  /** How many characters of an `exec` output the model sees. */
  execOutputLimit: z.number().int().positive().optional(),
  /** How long a model request may stay silent (before its first byte, and between chunks). */
  modelTimeoutMs: z.number().int().positive().optional(),
  daemon: z
    .strictObject({
      /** Commit each handoff document by itself (D3); false is `commit: "off"`. */
      autoCommit: z.boolean().optional(),
      /**
       * Where handoff documents are committed: `branch` (the branch checked out, default),
       * `ref` (a side ref, `commitRef`; the work tree, index and HEAD untouched) or `off`.
       */
      commit: z.enum(['branch', 'ref', 'off']).optional(),
      /**
       * The side ref of `commit: "ref"`; default `refs/heads/ai-zen/handoffs`. The committer moves only a
       * ref of ai-zen's own (daemon/committing/commit-ref-guard.ts); a project's choice applies once the repo is trusted.
       */
      commitRef: z
        .string()
        .regex(/^refs\/[^\s~^:?*[\\]+$/, 'a full ref name such as refs/heads/ai-zen/handoffs')
        .refine((ref) => !/(^|\/)\.|\.\.|\/\/|\.lock(\/|$)|\/$|@\{/.test(ref), 'not a valid git ref name')
        .optional(),
      /** Desktop notifications on overflow and handoff outcomes (D4). */
      notifications: z.boolean().optional(),
      /** S5: one notification per crossing of the warning threshold (`warnAt`, `agents.<agent>.warnAt`); default true. */
      warnings: z.boolean().optional(),
      /**
       * Minutes with no live session and nothing pending after which the daemon exits by itself (the next
       * agent session in an enabled repo starts it again); 0: never. Default 30.
       */
      idleExitMinutes: z.number().min(0).max(525_600).optional(),
    })
    .optional(),
  /** Other agents' sessions the daemon watches (X3): `claude-code`, `codex`. */
  agents: AgentsConfigFile.optional(),
  /** S5: percent of the window at which ai-zen's own sessions warn (the chat's status line and one line); default 80. */
  warnAt: z.number().int().min(1).max(100).optional(),
  /** S3: may the model's `handoff` tool migrate without a person to ask (`-p`, scripts)? Default false. */
  agentMayMigrate: z.boolean().optional(),
});
export type ConfigFile = z.infer<typeof ConfigFile>;
