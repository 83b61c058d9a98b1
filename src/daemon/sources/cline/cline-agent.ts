// Cline CLI (`cline` 3.x) as an agent ai-zen watches: its sessions of this repo (cline-paths.ts,
// cline-session-folders.ts), measured as Cline measures itself (cline-fold.ts), `cline -i --id <id>`
// to reopen one whole, `cline -i "<prompt>"` to continue from a document, `/clear` for a fresh session
// in the same terminal; its PostToolUse hook as ai-zen's Stop (cline-hooks.ts): Cline has none that
// holds the end of a turn, so the model is asked to write its document after a tool call, and the
// successor after `/clear` is told of it at its first tool call (TaskStart's answer is not heard).
import path from 'node:path';
import type { AgentModule } from '../agent-module.js';
import { createAgentReader } from '../kit/agent-reader.js';
import { defineAgent, windowSettings } from '../kit/agent-source.js';
import { readClineEvidence } from './cline-evidence.js';
import { clineMessagesFold } from './cline-fold.js';
import { clineHookInstalled, clineHooks } from './cline-hooks.js';
import { clineSessionsDir, isClineTranscript, MESSAGES_SUFFIX } from './cline-paths.js';
import { clineOwnership, clineSessionFolders } from './cline-session-folders.js';

const clineDefinition = defineAgent(
  {
    name: 'cline',
    word: 'cline',
    freshSessionCommand: '/clear',
    resumeCommand: (sessionId) => `cline -i --id ${sessionId}`,
    // `-i`: the terminal interface, started with the prompt; with `--json` among the client's arguments, a script's run of it.
    startArgs: (prompt, clientArgs) => (clientArgs.includes('--json') ? [...clientArgs, prompt] : [...clientArgs, '-i', prompt]),
    hooks: clineHooks,
  },
  (context) => {
    const sessions = clineSessionsDir(context.env);
    const ownership = clineOwnership(context.root);
    const settings = windowSettings('cline', context);
    return {
      matches: (file) => isClineTranscript(file, sessions),
      transcriptSuffix: MESSAGES_SUFFIX,
      folders: clineSessionFolders(sessions, ownership),
      // Its folder's owner is decided from the manifest before the first read: another repo's conversation is never read.
      createReader: (file) => createAgentReader(file, clineMessagesFold, settings, () => ownership.decide(path.dirname(file))),
      isLive: null,
      readEvidence: (file, options) => readClineEvidence(file, context.root, options),
      selfHooksInstalled: () => clineHookInstalled(context.root),
      selfHooksMustAnswer: false,
      editTools: 'apply_patch or editor',
      readWith: 'read_files tool',
      selfWriteInstructions: (doc) => [
        `Before you stop, create the handoff document as one new file at exactly this path: ${doc.absolute}`,
        'Write that one file, in one call, and change nothing else.',
      ],
    };
  },
);

/** Its Stop is its PostToolUse, and its TaskStart runs detached: a successor after `/clear` is told at its first tool call. */
export const clineAgent: AgentModule = {
  ...clineDefinition,
  createSource: (context) => {
    const source = clineDefinition.createSource(context);
    return { ...source, handoff: { ...source.handoff!, stopAfterToolCall: true } };
  },
};
