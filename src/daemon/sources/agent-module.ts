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
import type { AgentHooks } from './agent-hooks.js';

export { HOOK_EVENTS, type AgentHooks, type HookEvent, type HookInput } from './agent-hooks.js';

export interface AgentSourceContext {
  /** Real path of the project root. */
  readonly root: string;
  readonly env: Env;
  /** `agents.<name>` of the effective config. */
  readonly config: AgentConfig;
  /** Where agents were seen compacting each model by themselves (absent: the tables' points only). */
  readonly learned?: Pick<CompactionPoints, 'pointFor'>;
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
  /** ai-zen's hooks in the agent's settings (agent-hooks.ts); null: the agent has none ai-zen can install. */
  readonly hooks: AgentHooks | null;
}
