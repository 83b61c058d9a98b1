// GitHub Copilot CLI as an agent ai-zen watches (agent-module.ts): `install-hooks copilot`,
// `continue --in copilot`, `hook copilot <event>`. Its hooks take Claude Code's input and answer
// as they are (copilot-hooks.ts), but for one field: its SessionStart input names the session and
// not its transcript, which is where the session's id says (so the daemon knows this session's
// hooks run, and lets its Stop hook take the crossing).
import { AGENT_LABELS } from '../../../config/agent-names.js';
import path from 'node:path';
import type { WatchedSource } from '../../watching/session-source.js';
import type { AgentModule, AgentSourceContext, HookEvent, HookInput } from '../agent-module.js';
import { createAgentReader } from '../kit/agent-reader.js';
import { agentSource, windowSettings } from '../kit/agent-source.js';
import { readCopilotEvidence } from './copilot-evidence.js';
import { copilotHooksInstalled, copilotSettingsFiles, installCopilotHooks, uninstallCopilotHooks } from './copilot-hooks.js';
import { isCopilotSessionLive } from './copilot-liveness.js';
import { copilotSessionState, EVENTS_FILE, isSessionId } from './copilot-paths.js';
import { copilotEventsFold } from './copilot-events.js';
import { copilotOwnership, copilotSessionFolders } from './copilot-session-folders.js';

export const copilotAgent: AgentModule = {
  name: 'copilot',
  label: AGENT_LABELS['copilot'],
  word: 'copilot',
  createSource: (context) => createCopilotSessionSource(context),
  freshSessionCommand: '/clear',
  resumeCommand: (sessionId) => `copilot --resume=${sessionId}`,
  // `-i`: an interactive session that starts with the prompt; with `-p` among the client's arguments, a script's run of it.
  startArgs: (prompt, clientArgs) => {
    const rest = clientArgs.filter((arg) => arg !== '-p' && arg !== '--prompt');
    return rest.length < clientArgs.length ? [...rest, '-p', prompt] : [...clientArgs, '-i', prompt];
  },
  hooks: {
    scope: 'repo',
    install: installCopilotHooks,
    uninstall: uninstallCopilotHooks,
    settingsFiles: ({ root }) => copilotSettingsFiles(root),
    readInput: (raw) => copilotHookInput(raw, process.env),
    writeOutput: copilotHookOutput,
    mcp: null,
    statusLine: null,
    trust: null,
  },
};

/**
 * Its transcripts under `${COPILOT_HOME:-~/.copilot}/session-state/<id>/events.jsonl`, the ones whose
 * workspace.yaml cwd is inside this repo, measured as Copilot measures itself (copilot-events.ts),
 * handed off before Copilot compacts by itself at 95% of its prompt budget.
 */
export function createCopilotSessionSource(context: AgentSourceContext): WatchedSource {
  const sessionState = copilotSessionState(context.env);
  const ownership = copilotOwnership(context.root);
  const settings = windowSettings('copilot', context);
  const prefix = sessionState + path.sep;
  const source = agentSource(copilotAgent, {
    folders: copilotSessionFolders(sessionState, ownership),
    matches: (file) =>
      file.startsWith(prefix) &&
      path.basename(file) === EVENTS_FILE &&
      isSessionId(path.basename(path.dirname(file))) &&
      path.dirname(path.dirname(file)) === sessionState,
    // Its folder's owner is decided before the first read: another repo's transcript is never read.
    createReader: (file) => createAgentReader(file, copilotEventsFold, settings, () => ownership.decide(path.dirname(file))),
    isLive: (file) => isCopilotSessionLive(path.dirname(file)),
    readEvidence: (file, options) => readCopilotEvidence(file, context.root, options),
    selfHooksInstalled: () => copilotHooksInstalled(context.root),
    // Copilot skips a repo's hooks, without a word, in a folder the person has not trusted.
    selfHooksMustAnswer: true,
    editTools: 'edit',
    readWith: 'view tool',
    selfWriteInstructions: (doc) => [
      `Before you stop, create the handoff document as one new file at exactly this path (relative to the repo root): ${doc.relative}`,
      'Write that file only: change no other file.',
    ],
  });
  // Copilot (1.0.102) writes a turn's usage line before or after its agentStop hook (a race): when
  // after, the crossing turn's own Stop does not see it, and the session's next Stop takes it.
  return { ...source, handoff: { ...source.handoff!, stopsBeforeUsage: true } };
}

/** The hook's stdin in ai-zen's terms; `env` is the hook's own, which Copilot passed on (its COPILOT_HOME). */
export function copilotHookInput(raw: unknown, env: Readonly<Record<string, string | undefined>>): HookInput | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const input = raw as HookInput;
  if (input.transcript_path !== undefined || typeof input.session_id !== 'string' || !isSessionId(input.session_id)) return input;
  return { ...input, transcript_path: path.join(copilotSessionState(env), input.session_id, EVENTS_FILE) };
}

/** The daemon's answer as Copilot takes it: SessionStart's context at the top level too (Copilot reads `additionalContext` there). */
export function copilotHookOutput(event: HookEvent, output: Record<string, unknown>): Record<string, unknown> {
  if (event !== 'SessionStart') return output;
  const specific = output.hookSpecificOutput;
  const context = typeof specific === 'object' && specific !== null ? (specific as Record<string, unknown>).additionalContext : undefined;
  return typeof context === 'string' ? { ...output, additionalContext: context } : output;
}
