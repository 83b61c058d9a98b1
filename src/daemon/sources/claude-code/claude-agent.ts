// Claude Code as an agent ai-zen watches: its transcripts of this repo under `projects/<slug>`
// (claude-paths.ts; other repos' folders are never listed), its fold, its liveness (its registry of
// running sessions), its evidence, `claude --resume <id>` to reopen a session whole and `claude
// "<prompt>"` to start a successor; its hooks, MCP entry and statusline in claude-agent-hooks.ts.
import { defineAgent, foldOptions, foldReader, writeWithTool } from '../kit/agent-source.js';
import { projectFolders } from '../kit/project-folders.js';
import { claudeHooks } from './claude-agent-hooks.js';
import { readClaudeEvidence } from './claude-evidence.js';
import { emptyClaudeState, foldClaudeLine } from './claude-fold.js';
import { registryLiveness } from '../kit/session-registry.js';
import { claudeProjectsDir, claudeSessionsDir, isClaudeTranscript, mayHoldSessionsOf } from './claude-paths.js';
import { claudeHooksInstalled } from './claude-settings.js';

export const claudeAgent = defineAgent(
  {
    name: 'claude-code',
    word: 'claude',
    freshSessionCommand: '/clear',
    resumeCommand: (sessionId) => `claude --resume ${sessionId}`,
    startArgs: (prompt, clientArgs) => [...clientArgs, prompt],
    hooks: claudeHooks,
  },
  (context) => {
    const projects = claudeProjectsDir(context.env);
    const sessions = claudeSessionsDir(context.env);
    return {
      matches: (file) => isClaudeTranscript(file, projects),
      folders: projectFolders(projects, (name) => mayHoldSessionsOf(name, context.root)),
      createReader: foldReader(emptyClaudeState, foldClaudeLine, foldOptions('claude-code', context)),
      isLive: registryLiveness(sessions),
      readEvidence: readClaudeEvidence,
      selfHooksInstalled: () => claudeHooksInstalled(context.root),
      selfHooksMustAnswer: false,
      editTools: 'Write or Edit',
      readWith: 'Read tool',
      selfWriteInstructions: writeWithTool('Write'),
    };
  },
);
