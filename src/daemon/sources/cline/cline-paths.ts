// Where Cline CLI (3.x, checked with 3.0.65) keeps its sessions: `<sessions>/<id>/<id>.json` (the
// manifest: cwd, workspace_root, model, the usage roll-up) and `<id>.messages.json` (the conversation,
// each reply with its `metrics`), both rewritten whole as `JSON.stringify(…, null, 2)`. `<sessions>` is
// CLINE_SESSION_DATA_DIR, else `<data>/sessions`, `<data>` being CLINE_DATA_DIR, else `<CLINE_DIR,
// else ~/.cline>/data` (Cline's own resolution, in @cline/shared). Every repo's sessions share that
// folder. Its `data/db/sessions.db` is an index Cline rebuilds from these files, not their source.
import path from 'node:path';
import type { Env } from '../../../paths.js';
import { agentHome } from '../kit/agent-home.js';

/** A session's folder name, its id (`1796466492763_ioic5`); subagents' files inside it have other stems. */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export const MESSAGES_SUFFIX = '.messages.json';

/** The folder holding one folder per session, of every repo. */
export function clineSessionsDir(env: Env): string {
  const named = (variable: string) => {
    const value = env[variable]?.trim();
    return value ? path.resolve(value) : null;
  };
  const sessions = named('CLINE_SESSION_DATA_DIR');
  if (sessions) return sessions;
  const data = named('CLINE_DATA_DIR') ?? path.join(named('CLINE_DIR') ?? agentHome(env, 'CLINE_DIR', '.cline'), 'data');
  return path.join(data, 'sessions');
}

/** `<sessions>/<id>/<id>.messages.json`, and nothing else (a subagent's `<id>/<other>.messages.json` is not a session). */
export function isClineTranscript(file: string, sessions: string): boolean {
  const folder = path.dirname(file);
  const id = path.basename(folder);
  return path.dirname(folder) === sessions && SESSION_ID.test(id) && path.basename(file) === `${id}${MESSAGES_SUFFIX}`;
}

/** `<sessions>/<id>/<id>.messages.json` → the id. */
export function clineSessionIdOf(file: string): string {
  return path.basename(path.dirname(file));
}

/** The session's manifest, beside its messages. */
export function manifestOf(sessionFolder: string): string {
  return path.join(sessionFolder, `${path.basename(sessionFolder)}.json`);
}
