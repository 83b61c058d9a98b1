// pi (the pi coding agent, `@mariozechner/pi-coding-agent`) as an agent ai-zen watches: its sessions
// of this repo and its subfolders (pi-paths.ts), and its hooks as a pi extension (pi-extension.ts).
import { defineAgent, foldOptions, foldReader, writeWithTool } from '../kit/agent-source.js';
import { projectFolders } from '../kit/project-folders.js';
import { readPiEvidence } from './pi-evidence.js';
import { piExtensionInstalled, piHooks } from './pi-extension.js';
import { emptyPiState, foldPiLine, type PiFoldOptions } from './pi-fold.js';
import { isPiSessionLive } from './pi-liveness.js';
import { readPiOwnSettings } from './pi-own-settings.js';
import { isPiTranscript, mayHoldSessionsOf, piAgentDir, piSessionsDir } from './pi-paths.js';

export const piAgent = defineAgent(
  {
    name: 'pi',
    word: 'pi',
    freshSessionCommand: '/ai-zen-continue',
    resumeCommand: (sessionId) => `pi --session ${sessionId}`,
    startArgs: (prompt, clientArgs) => [...clientArgs, prompt],
    hooks: piHooks,
  },
  (context) => {
    const sessions = piSessionsDir(context.env);
    const fold: PiFoldOptions = { ...foldOptions('pi', context), ...readPiOwnSettings(piAgentDir(context.env), context.root) };
    return {
      matches: (file) => isPiTranscript(file, sessions),
      folders: projectFolders(sessions, (name) => mayHoldSessionsOf(name, context.root)),
      createReader: foldReader(emptyPiState, foldPiLine, fold),
      isLive: (file, except) => isPiSessionLive(file, '/proc', except),
      readEvidence: (file, options) => readPiEvidence(file, options, context.root),
      selfHooksInstalled: () => piExtensionInstalled(context.root),
      selfHooksMustAnswer: false,
      editTools: 'write or edit',
      readWith: 'read tool',
      selfWriteInstructions: writeWithTool('write'),
    };
  },
);
