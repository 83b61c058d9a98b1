// GitHub Copilot CLI as an agent ai-zen watches (agent-module.ts): `install-hooks copilot`,
// `continue --in copilot`, `hook copilot <event>`. Its hooks take Claude Code's input and answer
// as they are (copilot-hooks.ts), but for one field: its SessionStart input names the session and
// not its transcript, which is where the session's id says (so the daemon knows this session's
// hooks run, and lets its Stop hook take the crossing).
import path from 'node:path';
import type { AgentModule, HookEvent, HookInput } from '../agent-module.js';
import { copilotSessionState, EVENTS_FILE, isSessionId } from './copilot-paths.js';
import { installCopilotHooks, uninstallCopilotHooks } from './copilot-hooks.js';
import { createCopilotSessionSource } from './copilot-source.js';

export const copilotAgent: AgentModule = {
  name: 'copilot',
  label: 'GitHub Copilot CLI',
  word: 'copilot',
  createSource: createCopilotSessionSource,
  resumeCommand: (sessionId) => `copilot --resume=${sessionId}`,
  // `-i`: an interactive session that starts with the prompt; with `-p` among the client's arguments, a script's run of it.
  startArgs: (prompt, clientArgs) => {
    const rest = clientArgs.filter((arg) => arg !== '-p' && arg !== '--prompt');
    return rest.length < clientArgs.length ? [...rest, '-p', prompt] : [...clientArgs, '-i', prompt];
  },
  hooks: {
    install: installCopilotHooks,
    uninstall: uninstallCopilotHooks,
    readInput: (raw) => copilotHookInput(raw, process.env),
    writeOutput: copilotHookOutput,
  },
};

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
