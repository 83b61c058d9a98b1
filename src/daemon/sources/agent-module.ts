// One agent the daemon watches, as the rest of ai-zen sees it: its names, its session source, how a
// person reopens or continues its sessions, and — where the agent has hooks — how ai-zen's hooks go
// into its settings and how its hook JSON maps onto ai-zen's. Every field a consumer needs is
// required (null: this agent has none), so an agent that forgets one does not compile instead of
// falling back to another agent's behaviour. Everything agent-specific stays in the agent's folder,
// over the shared kit (kit/); the daemon, the CLI and the MCP server only go through this interface
// and the list in index.ts.
import type { AgentConfig } from '../../config/agents-config.js';
import type { WatchedAgent } from '../../config/agent-names.js';
import type { Env } from '../../paths.js';
import type { CompactionPoints } from '../watching/compaction-points.js';
import type { WatchedSource } from '../watching/session-source.js';

/** ai-zen's hook events; each agent's own events map onto them (Gemini's AfterAgent is Stop). */
export type HookEvent = 'Stop' | 'PreCompact' | 'SessionStart';
export const HOOK_EVENTS: readonly HookEvent[] = ['Stop', 'PreCompact', 'SessionStart'];

export interface AgentSourceContext {
  /** Real path of the project root. */
  readonly root: string;
  readonly env: Env;
  /** `agents.<name>` of the effective config. */
  readonly config: AgentConfig;
  /** Where agents were seen compacting each model by themselves (absent: the tables' points only). */
  readonly learned?: Pick<CompactionPoints, 'pointFor'>;
}

/** What a hook's stdin says, in ai-zen's terms (Claude Code's field names). */
export interface HookInput {
  readonly transcript_path?: string;
  readonly session_id?: string;
  readonly cwd?: string;
  readonly stop_hook_active?: boolean;
  readonly trigger?: string;
  readonly source?: string;
  /** A script runs the session (`pi -p`): said by the hook where the agent's transcript does not say it (issue 19 §7). */
  readonly scripted?: boolean;
}

export interface AgentHooks {
  /** Adds ai-zen's hooks (and only those) to the agent's settings; `command(event)` is what a hook runs. Lines for the person, if any. */
  install(input: {
    readonly root: string;
    readonly env: Env;
    readonly command: (event: HookEvent) => string;
  }): Promise<{ readonly file: string; readonly changed: boolean; readonly notes?: readonly string[] }>;
  /** Removes ai-zen's hooks, and only those. */
  uninstall(input: { readonly root: string; readonly env: Env }): Promise<{ readonly file: string; readonly changed: boolean }>;
  /**
   * The agent's hook stdin in ai-zen's terms (default: Claude Code's shape, as it is); null: not a hook
   * input to answer. It may wait (in the hook's process) for what the agent has yet to write (Qwen Code).
   */
  readInput?(raw: unknown): HookInput | null | Promise<HookInput | null>;
  /** The daemon's answer (Claude Code's shape: `{decision: 'block', reason}`, `hookSpecificOutput`) as this agent's hook must print it. */
  writeOutput?(event: HookEvent, output: Record<string, unknown>): Record<string, unknown> | null;
}

export interface AgentModule {
  /** The config key and every reply's `agent`: 'claude-code'. */
  readonly name: WatchedAgent;
  /** For people: 'Claude Code'. */
  readonly label: string;
  /** The client's command, and the word a person types: `install-hooks claude`, `continue --in claude`. */
  readonly word: string;
  createSource(context: AgentSourceContext): WatchedSource;
  /** The command that reopens a session with its whole history (`claude --resume <id>`); null when the agent has none. */
  resumeCommand(sessionId: string): string | null;
  /** What a person types in the agent to start a fresh session in the same terminal (`/clear`); null: it has none. */
  readonly freshSessionCommand: string | null;
  /** The client's arguments to start a session whose first prompt is `prompt` (`continue --in`, the successor command). */
  startArgs(prompt: string, clientArgs: readonly string[]): readonly string[];
  /** The agent's hooks ai-zen installs generically; null where its command does it (Claude Code's and Codex's, for now). */
  readonly hooks: AgentHooks | null;
}
