// The agents whose sessions the daemon watches: ai-zen's own, and one line per other agent below.
// Each of those is one folder here (its transcript folders, its fold, its evidence, its successor
// command, its hooks) exporting an AgentModule (agent-module.ts); its name is in
// config/agent-names.ts and its models in config/agent-models.ts.
import type { Config } from '../../config/load-config.js';
import type { Env, ProjectPaths } from '../../paths.js';
import type { CompactionPoints } from '../watching/compaction-points.js';
import { fixedFolder, type WatchedSource } from '../watching/session-source.js';
import { createAiZenSessionSource } from '../watching/session-source-ai-zen.js';
import type { AgentModule } from './agent-module.js';
import { claudeAgent } from './claude-code/claude-agent.js';
import { codexAgent } from './codex/codex-agent.js';
import { qwenAgent } from './qwen-code/qwen-agent.js';
import { piAgent } from './pi/pi-agent.js';
import { copilotAgent } from './copilot/copilot-agent.js';
import { geminiAgent } from './gemini/gemini-agent.js';
import { clineAgent } from './cline/cline-agent.js';
import { kiloAgent, opencodeAgent } from './opencode/opencode-agent.js';

export const AGENT_MODULES: readonly AgentModule[] = [
  claudeAgent,
  codexAgent,
  qwenAgent,
  piAgent,
  copilotAgent,
  geminiAgent,
  clineAgent,
  opencodeAgent,
  kiloAgent,
];

/** The module of an agent by its config name ('claude-code') or the word people type ('claude'). */
export function agentModule(nameOrWord: string): AgentModule | null {
  return AGENT_MODULES.find((agent) => agent.name === nameOrWord || agent.word === nameOrWord) ?? null;
}

export interface SourceContext {
  /** Real path of the project root. */
  readonly root: string;
  readonly paths: ProjectPaths;
  readonly env: Env;
  readonly config: Config;
  /** Where each agent was seen compacting each model by itself. */
  readonly learned?: Pick<CompactionPoints, 'pointFor'>;
}

export function createSessionSources(context: SourceContext): WatchedSource[] {
  const sources: WatchedSource[] = [{ ...createAiZenSessionSource(), folders: fixedFolder(context.paths.sessions, true) }];
  for (const agent of AGENT_MODULES) {
    const config = context.config.agents[agent.name];
    if (!config.enabled) continue;
    sources.push(
      agent.createSource({ root: context.root, env: context.env, config, ...(context.learned ? { learned: context.learned } : {}) }),
    );
  }
  return sources;
}
