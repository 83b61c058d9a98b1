// The other agents whose sessions the daemon watches (X3, issue 24). Their names are the keys of
// config `agents.<name>`, of the model table (agent-models.ts) and of a session's `agent` in every
// reply. A new agent is one name here, its entries in the model table, and its folder under
// src/daemon/sources/ registered in that folder's index.ts.
export const WATCHED_AGENTS = ['claude-code', 'codex', 'qwen-code', 'pi', 'copilot', 'gemini'] as const;

export type WatchedAgent = (typeof WATCHED_AGENTS)[number];

export function isWatchedAgent(name: unknown): name is WatchedAgent {
  return typeof name === 'string' && (WATCHED_AGENTS as readonly string[]).includes(name);
}
