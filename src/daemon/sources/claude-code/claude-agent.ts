// Claude Code as an agent ai-zen watches: its transcripts of this repo under `projects/<slug>`
// (claude-paths.ts; other repos' folders are never listed), its fold, its liveness (its registry of
// running sessions), its evidence, `claude --resume <id>` to reopen a session whole and `claude
// "<prompt>"` to start a successor; its hooks, MCP entry and statusline in claude-agent-hooks.ts.
import { AGENT_LABELS } from '../../../config/agent-names.js';
import path from 'node:path';
import { createLineFoldReader } from '../../watching/line-fold-reader.js';
import type { WatchedSource } from '../../watching/session-source.js';
import type { AgentModule, AgentSourceContext } from '../agent-module.js';
import { agentSource, windowSettings, writeWithTool } from '../kit/agent-source.js';
import { claudeHooks } from './claude-agent-hooks.js';
import { projectFolders } from '../kit/project-folders.js';
import { readClaudeEvidence } from './claude-evidence.js';
import { emptyClaudeState, foldClaudeLine, type ClaudeFoldOptions } from './claude-fold.js';
import { isClaudeSessionLive } from './claude-liveness.js';
import { claudeProjectsDir, claudeSessionsDir, isClaudeTranscript, mayHoldSessionsOf } from './claude-paths.js';
import { claudeHooksInstalled } from './claude-settings.js';

export const claudeAgent: AgentModule = {
  name: 'claude-code',
  label: AGENT_LABELS['claude-code'],
  word: 'claude',
  createSource: (context) => createClaudeCodeSource(context),
  freshSessionCommand: '/clear',
  resumeCommand: (sessionId) => `claude --resume ${sessionId}`,
  startArgs: (prompt, clientArgs) => [...clientArgs, prompt],
  hooks: claudeHooks,
};

export function createClaudeCodeSource(context: AgentSourceContext): WatchedSource {
  const projects = claudeProjectsDir(context.env);
  const sessions = claudeSessionsDir(context.env);
  const fold: ClaudeFoldOptions = { root: context.root, ...windowSettings('claude-code', context) };
  return agentSource(claudeAgent, {
    matches: (file) => isClaudeTranscript(file, projects),
    folders: projectFolders(projects, (name) => mayHoldSessionsOf(name, context.root)),
    createReader: (file) =>
      createLineFoldReader(file, { empty: (name) => emptyClaudeState(name, fold), fold: (state, raw) => foldClaudeLine(state, raw, fold) }),
    isLive: (file) => isClaudeSessionLive(sessions, path.basename(file, '.jsonl')),
    readEvidence: readClaudeEvidence,
    selfHooksInstalled: () => claudeHooksInstalled(context.root),
    selfHooksMustAnswer: false,
    editTools: 'Write or Edit',
    selfWriteInstructions: writeWithTool('Write'),
  });
}
