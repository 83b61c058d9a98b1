// Where pi (the pi coding agent, `@mariozechner/pi-coding-agent`) keeps its sessions:
// `${PI_CODING_AGENT_DIR:-~/.pi/agent}/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl`, the folder
// being the session's working directory without its leading `/`, every `/`, `\` and `:` turned
// into `-` (the client's own rule, 0.73). The name is lossy (`/a/b-c` and `/a-b/c` share one): it
// only picks the folders to watch; the header's `cwd` decides whether a session is this repo's.
import path from 'node:path';
import type { Env } from '../../../paths.js';
import { agentHome } from '../kit/agent-home.js';
import { isProjectTranscript } from '../kit/project-folders.js';

/** pi's own folder (config, models.json, settings.json, sessions/); pi expands a leading `~` of its variable itself. */
export function piAgentDir(env: Env): string {
  return agentHome(env, 'PI_CODING_AGENT_DIR', path.join('.pi', 'agent'), true);
}

export function piSessionsDir(env: Env): string {
  return path.join(piAgentDir(env), 'sessions');
}

/** The folder name pi gives the sessions of `cwd`. */
function piFolderName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
}

/** Whether a folder of `sessions/` may hold sessions of `root` or of one of its subfolders. */
export function mayHoldSessionsOf(folderName: string, root: string): boolean {
  const own = piFolderName(root);
  return folderName === own || folderName.startsWith(`${own.slice(0, -2)}-`);
}

/** `2026-12-04T07-37-02-984Z_<uuid>.jsonl` */
const SESSION_FILE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9-]+Z_([0-9a-fA-F-]{8,64})\.jsonl$/;

/** `sessions/<folder>/<timestamp>_<uuid>.jsonl`, and nothing deeper or shallower. */
export function isPiTranscript(file: string, sessionsDir: string): boolean {
  return isProjectTranscript(file, sessionsDir, SESSION_FILE);
}

/** The session's id: the uuid of its file name (T2: a session's identity is its file name). */
export function piSessionIdFromName(file: string): string {
  return SESSION_FILE.exec(path.basename(file))?.[1] ?? path.basename(file, '.jsonl');
}
