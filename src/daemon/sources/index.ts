// The agents whose sessions the daemon watches. Each agent is one folder here (its transcript
// folders, its fold, its evidence, its successor command) and one line below.
import type { Config } from '../../config/load-config.js';
import type { Env, ProjectPaths } from '../../paths.js';
import { fixedFolder, type WatchedSource } from '../watching/session-source.js';
import { createAiZenSessionSource } from '../watching/session-source-ai-zen.js';
import { createClaudeCodeSource } from './claude-code/claude-source.js';
import { createCodexSessionSource } from './codex/codex-source.js';
import type { CompactionPoints } from '../watching/compaction-points.js';

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
  const claude = context.config.agents['claude-code'];
  if (claude.enabled) sources.push(createClaudeCodeSource({ root: context.root, env: context.env, config: claude, ...learned(context) }));
  if (context.config.agents.codex.enabled)
    sources.push(
      createCodexSessionSource({ root: context.root, env: context.env, agent: context.config.agents.codex, ...learned(context) }),
    );
  return sources;
}

function learned(context: SourceContext): { learned?: Pick<CompactionPoints, 'pointFor'> } {
  return context.learned ? { learned: context.learned } : {};
}
