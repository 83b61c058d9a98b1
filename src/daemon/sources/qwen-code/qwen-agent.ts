// Qwen Code (`@qwen-code/qwen-code`, the `qwen` command) as an agent ai-zen watches: its transcripts
// under `projects/<slug>/chats/` (qwen-paths.ts) for this repo's slugs only, its fold, its liveness
// (its registry of running sessions, Claude Code's shape), its evidence, `qwen --resume <id>` to
// reopen a session whole, a fresh `qwen -i "<prompt>"` to continue from a document (a bare positional
// prompt would be one-shot and exit), and its Claude-shaped hooks in the project's `.qwen/settings.json`.
import { AGENT_LABELS } from '../../../config/agent-names.js';
import path from 'node:path';
import { createLineFoldReader } from '../../watching/line-fold-reader.js';
import type { WatchedSource } from '../../watching/session-source.js';
import type { AgentModule, AgentSourceContext } from '../agent-module.js';
// Qwen's session registry is Claude Code's shape: `<pid>.json` naming the running session.
import { isClaudeSessionLive } from '../claude-code/claude-liveness.js';
import { agentSource, windowSettings, writeWithTool } from '../kit/agent-source.js';
import { projectFolders } from '../kit/project-folders.js';
import { readQwenEvidence } from './qwen-evidence.js';
import { emptyQwenState, foldQwenLine, type QwenFoldOptions } from './qwen-fold.js';
import { readQwenHookInput } from './qwen-hook-input.js';
import { hookOutputAsItIs } from '../hook-groups.js';
import { installQwenHooks, qwenHooksInstalled, qwenSettingsFiles, uninstallQwenHooks } from './qwen-hooks.js';
import { isQwenTranscript, mayHoldSessionsOf, qwenProjectsDir, qwenSessionsRegistry } from './qwen-paths.js';
import { scriptedByRegistry } from './qwen-scripted.js';

export const qwenAgent: AgentModule = {
  name: 'qwen-code',
  label: AGENT_LABELS['qwen-code'],
  word: 'qwen',
  createSource: (context) => createQwenCodeSource(context),
  freshSessionCommand: '/clear',
  resumeCommand: (sessionId) => `qwen --resume ${sessionId}`,
  startArgs: (prompt, clientArgs) => [...clientArgs, '-i', prompt],
  hooks: {
    scope: 'repo',
    install: async (input) => ({ ...(await installQwenHooks(input)), what: '', notes: [] }),
    uninstall: uninstallQwenHooks,
    settingsFiles: ({ root }) => qwenSettingsFiles(root),
    readInput: (raw) => readQwenHookInput(raw),
    writeOutput: hookOutputAsItIs,
    mcp: null,
    statusLine: null,
    trust: null,
  },
};

export function createQwenCodeSource(context: AgentSourceContext): WatchedSource {
  const projects = qwenProjectsDir(context.env);
  const registry = qwenSessionsRegistry(context.env);
  const fold: QwenFoldOptions = { root: context.root, ...windowSettings('qwen-code', context) };
  const isLive = (file: string) => isClaudeSessionLive(registry, path.basename(file, '.jsonl'));
  return agentSource(qwenAgent, {
    matches: (file) => isQwenTranscript(file, projects),
    folders: projectFolders(projects, (name) => mayHoldSessionsOf(name, context.root), 'chats'),
    createReader: (file) =>
      scriptedByRegistry(
        createLineFoldReader(file, { empty: (name) => emptyQwenState(name, fold), fold: (state, raw) => foldQwenLine(state, raw, fold) }),
        () => isLive(file),
      ),
    isLive,
    readEvidence: readQwenEvidence,
    selfHooksInstalled: () => qwenHooksInstalled(context.root),
    selfHooksMustAnswer: false,
    editTools: 'write_file or edit',
    selfWriteInstructions: writeWithTool('write_file'),
  });
}
