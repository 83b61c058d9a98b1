// Gemini CLI as a session source (X3, issue 24): the sessions under `<home>/.gemini/tmp/<project>/
// chats/` whose project folder names this repo (or a folder inside it) as its root, measured as
// Gemini measures itself (the last reply's promptTokenCount over the model's window), handed over
// at `agents.gemini.handoffAt` — at most 47% by default, 3 points before Gemini compresses its
// history at 50% — and continued by a fresh `gemini`. Whether a `gemini` process has a session open
// is not known: the client holds no lock and writes no pid file (0.61), so `status` never shows one
// live.
import { belongsToRepo } from '../../../probe/innermost-repo.js';
import type { AgentSourceContext } from '../agent-module.js';
import { createLineFoldReader } from '../../watching/line-fold-reader.js';
import type { WatchedSource } from '../../watching/session-source.js';
import { readGeminiEvidence } from './gemini-evidence.js';
import { emptyGeminiState, foldGeminiLine, type GeminiFoldOptions } from './gemini-fold.js';
import { geminiFolders, projectRootOf } from './gemini-folders.js';
import { geminiHooksInstalled } from './gemini-hooks.js';
import { geminiTmpDir, isGeminiTranscript, projectFolderOf } from './gemini-paths.js';

export function createGeminiSource(context: AgentSourceContext): WatchedSource {
  const tmpDir = geminiTmpDir(context.env);
  const fold: GeminiFoldOptions = {
    handoffAt: context.config.handoffAt,
    warnAt: context.config.warnAt,
    handoffAtTokens: context.config.handoffAtTokens,
    contextWindow: context.config.contextWindow,
    models: context.config.models,
    learnedPoint: (model) => context.learned?.pointFor('gemini', model) ?? null,
  };
  return {
    id: 'gemini',
    kind: 'gemini',
    label: 'Gemini CLI',
    folders: geminiFolders(tmpDir, context.root),
    matches: (file) => isGeminiTranscript(file, tmpDir),
    createReader: (file) => {
      // The transcript never names its folder: the project folder's `.project_root` says whose it is, and is the session's cwd.
      let projectRoot: string | null = null;
      return createLineFoldReader(
        file,
        {
          empty: (name) => emptyGeminiState(name, fold),
          fold: (state, raw) =>
            foldGeminiLine(state.cwd === null && projectRoot !== null ? { ...state, cwd: projectRoot } : state, raw, fold),
        },
        {
          decideOwner: async () => {
            projectRoot = await projectRootOf(projectFolderOf(file));
            return projectRoot === null ? null : belongsToRepo(context.root, projectRoot);
          },
        },
      );
    },
    handover: {
      readEvidence: (file) => readGeminiEvidence(file, context.root),
      successorCommand: geminiSuccessorCommand,
      selfHooksInstalled: () => geminiHooksInstalled(context.root),
      // Gemini skips a project's hooks in a folder the user has not trusted, without a word.
      selfHooksMustAnswer: true,
      selfWriteInstructions: (doc) => [
        `Before you stop, write the handoff document with your write_file tool to exactly this path: ${doc.absolute}`,
        'Write that one file, in one write_file call, and change nothing else.',
      ],
    },
  };
}

/** A fresh interactive Gemini session that starts from the document — never `--resume` of the full history. */
export function geminiSuccessorCommand(documentPath: string): string {
  const instruction = `Read the handoff document ${documentPath} first: it says what was done, what is left and how to check it. Then continue the work it describes.`;
  return `gemini -i "${instruction.replace(/(["$`\\])/g, '\\$1')}"`;
}
