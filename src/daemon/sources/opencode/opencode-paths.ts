// Where opencode (and Kilo Code, which runs opencode under its own name) keeps its sessions: one
// SQLite database in its data folder, `${XDG_DATA_HOME:-~/.local/share}/<app>/<app>.db`. A session
// is a row of it, so ai-zen names a session by the database and its id: `<database>#<session id>`.
import path from 'node:path';
import { type Env, xdgFolder } from '../../../paths.js';

/** The client's name for its folders and its database: `opencode`, or `kilo` for Kilo Code. */
export type OpencodeApp = 'opencode' | 'kilo';

/** `${XDG_DATA_HOME:-~/.local/share}/<app>` (a relative XDG_DATA_HOME is ignored, as the XDG spec says). */
export function opencodeDataFolder(env: Env, app: OpencodeApp): string {
  return path.join(xdgFolder(env, 'XDG_DATA_HOME', path.join('.local', 'share')), app);
}

export function opencodeDatabase(folder: string, app: OpencodeApp): string {
  return path.join(folder, `${app}.db`);
}

const SESSION_ID = /^ses_[A-Za-z0-9]{1,64}$/;

/** The name ai-zen gives one session of the database. */
export function sessionFile(database: string, sessionId: string): string {
  return `${database}#${sessionId}`;
}

/** The session id a name of `database` holds; null: not one of its sessions. */
export function sessionIdOf(database: string, file: string): string | null {
  if (!file.startsWith(`${database}#`)) return null;
  const id = file.slice(database.length + 1);
  return SESSION_ID.test(id) ? id : null;
}
