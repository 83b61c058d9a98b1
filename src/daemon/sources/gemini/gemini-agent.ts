// Gemini CLI as an agent ai-zen watches: the sessions under `<home>/.gemini/tmp/<project>/chats/`
// whose project folder names this repo (or a folder inside it) as its root, measured as Gemini
// measures itself (the last reply's promptTokenCount over the model's window), `gemini --resume <id>`
// to reopen a session whole, `gemini -i "<prompt>"` to continue from a document (a bare prompt runs
// headless when stdin is no terminal), and its hooks in the project's `.gemini/settings.json`.
// Whether a `gemini` process has a session open is not known: the client holds no lock and writes
// no pid file, so `status` never shows one live.
import { belongsToRepo } from '../../../probe/innermost-repo.js';
import { createLineFoldReader } from '../../watching/line-fold-reader.js';
import { defineAgent, windowSettings, writeWithTool } from '../kit/agent-source.js';
import { readGeminiEvidence } from './gemini-evidence.js';
import { emptyGeminiState, foldGeminiLine, type GeminiFoldOptions } from './gemini-fold.js';
import { geminiFolders, projectRootOf } from './gemini-folders.js';
import { geminiHooks, geminiHooksInstalled } from './gemini-hooks.js';
import { geminiTmpDir, isGeminiTranscript, projectFolderOf } from './gemini-paths.js';

export const geminiAgent = defineAgent(
  {
    name: 'gemini',
    word: 'gemini',
    freshSessionCommand: '/clear',
    resumeCommand: (sessionId) => `gemini --resume ${sessionId}`,
    startArgs: (prompt, clientArgs) => [...clientArgs, '-i', prompt],
    hooks: geminiHooks,
  },
  (context) => {
    const tmpDir = geminiTmpDir(context.env);
    const fold: GeminiFoldOptions = windowSettings('gemini', context);
    return {
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
      isLive: null,
      readEvidence: (file, options) => readGeminiEvidence(file, context.root, options),
      selfHooksInstalled: () => geminiHooksInstalled(context.root),
      // Gemini skips a project's hooks in a folder the user has not trusted, without a word.
      selfHooksMustAnswer: true,
      editTools: 'write_file or replace',
      readWith: 'read_file tool',
      selfWriteInstructions: writeWithTool('write_file'),
    };
  },
);
