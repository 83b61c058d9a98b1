// Codex CLI as an agent ai-zen watches: its rollouts whose session_meta cwd is inside this repo,
// measured as Codex measures itself, handed off before Codex compacts by itself at about 95% of the
// window it reports (its auto-compaction limit is 90% of the model's full window, which it reports
// as 95% of that). Its hooks, their trust and its MCP entry in codex-hooks.ts.
import path from 'node:path';
import { codexSessionsFolder } from '../../../paths.js';
import { createAgentReader } from '../kit/agent-reader.js';
import { defineAgent, windowSettings } from '../kit/agent-source.js';
import { flockHeld } from '../kit/flock-held.js';
import { readCodexEvidence } from './codex-evidence.js';
import { codexHooks, codexHooksInstalled } from './codex-hooks.js';
import { codexRolloutFold, codexSessionIdFromName } from './codex-rollout.js';
import { codexOwnership, codexRolloutFolders } from './codex-rollout-folders.js';
import { isRolloutName } from './codex-rollout-meta.js';

export const codexAgent = defineAgent(
  {
    name: 'codex',
    word: 'codex',
    freshSessionCommand: '/clear',
    resumeCommand: (sessionId) => `codex resume ${sessionId}`,
    startArgs: (prompt, clientArgs) => [...clientArgs, prompt],
    hooks: codexHooks,
  },
  (context) => {
    const sessions = codexSessionsFolder(context.env);
    const ownership = codexOwnership(context.root);
    const settings = windowSettings('codex', context);
    return {
      folders: codexRolloutFolders(sessions, ownership),
      matches: (file) => file.startsWith(sessions + path.sep) && isRolloutName(path.basename(file)),
      // Another repo's rollout is marked otherRepo after a few KB of its head and never read again.
      createReader: (file) => createAgentReader(file, codexRolloutFold, settings, (name) => ownership.decide(name)),
      isLive: (file) => isCodexSessionLive(path.dirname(sessions), codexSessionIdFromName(file)),
      readEvidence: (file, options) => readCodexEvidence(file, context.root, options),
      selfHooksInstalled: () => codexHooksInstalled(context.env),
      // Codex skips a hook the user has not trusted, without a word.
      selfHooksMustAnswer: true,
      editTools: 'apply_patch',
      // Codex reads through its shell; `cat` is among the commands it runs without asking.
      readWith: 'shell (cat)',
      selfWriteInstructions: (doc) => [
        `Before you stop, create the handoff document with your apply_patch tool, as one new file at exactly this path (relative to the repo root): ${doc.relative}`,
        `That is one patch with one "*** Add File: ${doc.relative}" and nothing else: change no other file.`,
      ],
    };
  },
);

/**
 * While a `codex` process has a thread open it holds an flock on
 * `$CODEX_HOME/thread-writer-locks/<session id>.lock` and removes the file when it ends (seen with
 * the real client, 0.171). Without /proc/locks (macOS) the file's presence decides.
 */
async function isCodexSessionLive(codexHome: string, sessionId: string, procLocks = '/proc/locks'): Promise<boolean> {
  // The id comes from a file name: never let it name another path.
  if (!/^[0-9A-Za-z-]+$/.test(sessionId)) return false;
  return (await flockHeld(path.join(codexHome, 'thread-writer-locks', `${sessionId}.lock`), procLocks)) !== false;
}
