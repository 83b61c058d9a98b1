// Where GitHub Copilot CLI keeps its sessions: `${COPILOT_HOME:-~/.copilot}/session-state/<session
// uuid>/`, one folder per session, holding `events.jsonl` (the transcript: one event a line) and
// `workspace.yaml` (the session's cwd and git root, written when the session is made). Every repo's
// sessions share the one `session-state` folder (checked with the real client, 1.0.102).
import path from 'node:path';
import type { Env } from '../../../paths.js';
import { agentHome } from '../kit/agent-home.js';

export const EVENTS_FILE = 'events.jsonl';
export const WORKSPACE_FILE = 'workspace.yaml';
export const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `$COPILOT_HOME`, else `~/.copilot`: the client's own folder (settings, session-state, logs). */
export function copilotHome(env: Env): string {
  return agentHome(env, 'COPILOT_HOME', '.copilot');
}

export function copilotSessionState(env: Env): string {
  return path.join(copilotHome(env), 'session-state');
}

/** A session folder's name is the session's id (a uuid); anything else there is not a session. */
export function isSessionId(name: string): boolean {
  return SESSION_ID.test(name);
}

/** `<session-state>/<id>/events.jsonl` → the id. */
export function copilotSessionIdOf(file: string): string {
  return path.basename(path.dirname(file));
}
