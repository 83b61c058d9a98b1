// opencode (`opencode-ai` 1.x) and Kilo Code (`@kilocode/cli`, which runs opencode under its own
// name and paths) as agents ai-zen watches: their sessions are rows of one SQLite database, so the
// source watches the database's folder itself (opencode-sessions.ts) instead of one file a session,
// and a session is named `<database>#<id>`. Their hooks are ai-zen's plugin (opencode-plugin.ts).
import type { WatchedAgent } from '../../../config/agent-names.js';
import { stampOf } from '../../watching/file-stamp.js';
import type { TranscriptFolders, WatchedSource } from '../../watching/session-source.js';
import type { AgentModule } from '../agent-module.js';
import { defineAgent, foldOptions } from '../kit/agent-source.js';
import { readOpencodeEvidence } from './opencode-evidence.js';
import type { OpencodeFoldOptions } from './opencode-fold.js';
import { isOpencodeSessionLive } from './opencode-liveness.js';
import { readOpencodeLimits } from './opencode-own-settings.js';
import { opencodeHooks, opencodePluginInstalled } from './opencode-plugin.js';
import { type OpencodeApp, opencodeDatabase, opencodeDataFolder, sessionIdOf } from './opencode-paths.js';
import { OpencodeSessions } from './opencode-sessions.js';
import path from 'node:path';

export const opencodeAgent = opencodeLike('opencode', 'opencode');
export const kiloAgent = opencodeLike('kilo', 'kilo');

function opencodeLike(name: WatchedAgent, app: OpencodeApp): AgentModule {
  const agent = defineAgent(
    {
      name,
      word: app,
      freshSessionCommand: '/new',
      resumeCommand: (sessionId) => `${app} --session ${sessionId}`,
      // The TUI with the prompt typed in and sent; `run` among the client's arguments: a script's run of it.
      startArgs: (prompt, clientArgs) => (clientArgs[0] === 'run' ? [...clientArgs, prompt] : [...clientArgs, '--prompt', prompt]),
      hooks: opencodeHooks(app),
    },
    (context) => {
      const folder = opencodeDataFolder(context.env, app);
      const database = opencodeDatabase(folder, app);
      return {
        matches: (file) => sessionIdOf(database, file) !== null,
        folders: databaseFolder(folder, database),
        createReader: () => {
          throw new Error(`${app}'s sessions are rows of its database, read by its own watcher`);
        },
        isLive: null,
        readEvidence: (file, options) => readOpencodeEvidence(database, sessionIdOf(database, file) ?? '', context.root, options),
        selfHooksInstalled: () => opencodePluginInstalled(context.root, app),
        selfHooksMustAnswer: false,
        editTools: 'write or edit',
        readWith: 'read tool',
        selfWriteInstructions: (doc) => [
          `Before you stop, write the handoff document with your write tool to exactly this path: ${doc.absolute}`,
          'Write that one file, in one write call, and change nothing else.',
        ],
      };
    },
  );
  return {
    ...agent,
    createSource: (context): WatchedSource => {
      const folder = opencodeDataFolder(context.env, app);
      const database = opencodeDatabase(folder, app);
      const fold: OpencodeFoldOptions = {
        ...foldOptions(name, context),
        agent: name,
        limits: readOpencodeLimits(context.env, app, context.root),
      };
      // The one watcher of the database's folder: liveness asks it where a session runs.
      let sessions: OpencodeSessions | null = null;
      return {
        ...agent.createSource(context),
        isLive: (file, except) => (sessions ? isOpencodeSessionLive(file, sessions, '/proc', except) : Promise.resolve(false)),
        watchFolder: (options) => (sessions = new OpencodeSessions({ ...options, database, fold })),
      };
    },
  };
}

/**
 * The database's folder once the database is there (and only then: libsql is loaded by its first
 * read); until then its folder and that folder's parent are watched for it to appear.
 */
function databaseFolder(folder: string, database: string): TranscriptFolders {
  return {
    create: false,
    list: async () => (stampOf(database) ? { folders: [folder], parents: [] } : { folders: [], parents: [path.dirname(folder), folder] }),
  };
}
