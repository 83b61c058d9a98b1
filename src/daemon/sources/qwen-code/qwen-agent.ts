// Qwen Code (`@qwen-code/qwen-code`, the `qwen` command) as an agent ai-zen watches: its transcripts
// under `projects/<slug>/chats/` (qwen-paths.ts) for this repo's slugs only, its fold, its liveness
// (its registry of running sessions, Claude Code's shape), its evidence, `qwen --resume <id>` to
// reopen a session whole, a fresh `qwen -i "<prompt>"` to continue from a document (a bare positional
// prompt would be one-shot and exit), and its Claude-shaped hooks in the project's `.qwen/settings.json`.
import { registryLiveness } from '../kit/session-registry.js';
import { hookOutputAsItIs } from '../hook-groups.js';
import { defineAgent, foldOptions, foldReader, writeWithTool } from '../kit/agent-source.js';
import { mayHoldDashSlug, projectFolders } from '../kit/project-folders.js';
import { readQwenEvidence } from './qwen-evidence.js';
import { emptyQwenState, foldQwenLine } from './qwen-fold.js';
import { readQwenHookInput } from './qwen-hook-input.js';
import { installQwenHooks, qwenHooksInstalled, qwenSettingsFiles, uninstallQwenHooks } from './qwen-hooks.js';
import { isQwenTranscript, qwenProjectsDir, qwenSessionsRegistry } from './qwen-paths.js';
import { scriptedByRegistry } from './qwen-scripted.js';

export const qwenAgent = defineAgent(
  {
    name: 'qwen-code',
    word: 'qwen',
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
  },
  (context) => {
    const projects = qwenProjectsDir(context.env);
    const registry = qwenSessionsRegistry(context.env);
    const reader = foldReader(emptyQwenState, foldQwenLine, foldOptions('qwen-code', context));
    const isLive = registryLiveness(registry);
    return {
      matches: (file) => isQwenTranscript(file, projects),
      folders: projectFolders(projects, (name) => mayHoldDashSlug(name, context.root), 'chats'),
      createReader: (file) => scriptedByRegistry(reader(file), () => isLive(file)),
      isLive,
      readEvidence: readQwenEvidence,
      selfHooksInstalled: () => qwenHooksInstalled(context.root),
      selfHooksMustAnswer: false,
      editTools: 'write_file or edit',
      readWith: 'read_file tool',
      selfWriteInstructions: writeWithTool('write_file'),
    };
  },
);
