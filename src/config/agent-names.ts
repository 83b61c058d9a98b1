// The other agents whose sessions the daemon watches (X3). Their names are the keys of
// config `agents.<name>`, of the model table (agent-models.ts) and of a session's `agent` in every
// reply. A new agent is one name here, its entries in the model table, and its folder under
// src/daemon/sources/ registered in that folder's index.ts.
export const WATCHED_AGENTS = ['claude-code', 'codex', 'qwen-code', 'pi', 'copilot', 'gemini', 'cline', 'opencode', 'kilo'] as const;

export type WatchedAgent = (typeof WATCHED_AGENTS)[number];

export function isWatchedAgent(name: unknown): name is WatchedAgent {
  return typeof name === 'string' && (WATCHED_AGENTS as readonly string[]).includes(name);
}

/** Each agent's name for people ('Claude Code'): notifications, help and messages say it. */
export const AGENT_LABELS: Readonly<Record<WatchedAgent, string>> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'qwen-code': 'Qwen Code',
  pi: 'pi',
  copilot: 'GitHub Copilot CLI',
  gemini: 'Gemini CLI',
  cline: 'Cline CLI',
  opencode: 'opencode',
  kilo: 'Kilo Code',
};

/** The label of 'ai-zen' or a watched agent; any other name as it is. */
export function agentLabel(name: string): string {
  return name === 'ai-zen' || !isWatchedAgent(name) ? name : AGENT_LABELS[name];
}

/** 'Claude Code, Codex, … or Gemini CLI' (with ai-zen's own first: `withAiZen`), for help texts. */
export function agentsInWords(withAiZen: boolean): string {
  const labels = [...(withAiZen ? ['ai-zen'] : []), ...WATCHED_AGENTS.map((name) => AGENT_LABELS[name])];
  return `${labels.slice(0, -1).join(', ')} or ${labels.at(-1)}`;
}
