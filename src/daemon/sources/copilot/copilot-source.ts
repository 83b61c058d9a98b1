// GitHub Copilot CLI as a session source (X3, issue 24): its transcripts under
// `${COPILOT_HOME:-~/.copilot}/session-state/<id>/events.jsonl`, the ones whose workspace.yaml cwd is
// inside this repo, measured as Copilot measures itself (copilot-events.ts), handed over at
// `agents.copilot.handoffAt` (default 70%) — before Copilot compacts by itself at 95% of its prompt
// budget — and continued by a fresh `copilot`.
import path from 'node:path';
import type { WatchedSource } from '../../watching/session-source.js';
import type { AgentSourceContext } from '../agent-module.js';
import { readCopilotEvidence } from './copilot-evidence.js';
import { copilotHooksInstalled } from './copilot-hooks.js';
import { isCopilotSessionLive } from './copilot-liveness.js';
import { copilotSessionState, EVENTS_FILE, isSessionId } from './copilot-paths.js';
import { CopilotOwnership, copilotSessionFolders } from './copilot-session-folders.js';
import { type CopilotReaderSettings, createCopilotSessionReader } from './copilot-session-reader.js';

export function createCopilotSessionSource(context: AgentSourceContext): WatchedSource {
  const sessionState = copilotSessionState(context.env);
  const ownership = new CopilotOwnership(context.root);
  const settings: CopilotReaderSettings = {
    handoffAt: context.config.handoffAt,
    warnAt: context.config.warnAt,
    handoffAtTokens: context.config.handoffAtTokens,
    contextWindow: context.config.contextWindow,
    models: context.config.models,
    learnedPoint: (model) => context.learned?.pointFor('copilot', model) ?? null,
  };
  const prefix = sessionState + path.sep;
  return {
    id: 'copilot',
    kind: 'copilot',
    label: 'GitHub Copilot CLI',
    folders: copilotSessionFolders(sessionState, ownership),
    matches: (file) =>
      file.startsWith(prefix) &&
      path.basename(file) === EVENTS_FILE &&
      isSessionId(path.basename(path.dirname(file))) &&
      path.dirname(path.dirname(file)) === sessionState,
    createReader: (file) => createCopilotSessionReader(file, ownership, settings),
    isLive: (file) => isCopilotSessionLive(path.dirname(file)),
    handover: {
      readEvidence: (file) => readCopilotEvidence(file, context.root),
      successorCommand: copilotSuccessorCommand,
      selfHooksInstalled: () => copilotHooksInstalled(context.root),
      // Copilot skips a repo's hooks, without a word, in a folder the person has not trusted.
      selfHooksMustAnswer: true,
      selfWriteInstructions: (doc) => [
        `Before you stop, create the handoff document as one new file at exactly this path (relative to the repo root): ${doc.relative}`,
        'Write that file only: change no other file.',
      ],
    },
  };
}

/** A fresh Copilot session that starts from the document — never `copilot --resume` of the full history. */
export function copilotSuccessorCommand(documentPath: string): string {
  return `copilot -i ${doubleQuoted(`Read the handoff document ${documentPath} first: it says what was done, what is left and how to check it. Then continue the work it describes.`)}`;
}

/** A shell word in double quotes: `"`, `$`, backquote and backslash escaped. */
function doubleQuoted(text: string): string {
  return `"${text.replace(/(["$`\\])/g, '\\$1')}"`;
}
