// Where Gemini CLI keeps its sessions (checked with 0.61): `<home>/.gemini/tmp/<project>/chats/
// session-<YYYY-MM-DDTHH-mm>-<first 8 of the session id>.jsonl`, `<home>` being GEMINI_CLI_HOME (the
// client's own override) or the user's home. `<project>` is a short name the client gives each
// project root (its basename, made unique: `~/.gemini/projects.json`), and the folder's
// `.project_root` file names that root — which decides whose sessions a folder holds. A session's
// project root is the folder `gemini` started in, so a session in a subfolder of the repo has a
// folder of its own. Subagents write `chats/<parent id>/<id>.jsonl`, deeper: never a session here.
import path from 'node:path';
import type { Env } from '../../../paths.js';
import { agentHome } from '../kit/agent-home.js';
import { isProjectTranscript } from '../kit/project-folders.js';

/** `<home>/.gemini/tmp`: one folder per project root. */
export function geminiTmpDir(env: Env): string {
  return path.join(agentHome(env, 'GEMINI_CLI_HOME', ''), '.gemini', 'tmp');
}

/** The file in a project folder naming its root. */
export const PROJECT_ROOT_FILE = '.project_root';

/** `session-` + the start minute (`toISOString().slice(0, 16)`, `:` as `-`) + `-` + the id's first 8 characters. */
const SESSION_FILE = /^session-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-([0-9A-Za-z_-]{1,8})\.jsonl$/;

/** `tmp/<project>/chats/session-….jsonl`, and nothing deeper. */
export function isGeminiTranscript(file: string, tmpDir: string): boolean {
  return isProjectTranscript(file, tmpDir, SESSION_FILE, 'chats');
}

/** The part of the session id the file name carries (its first 8 characters, as the client writes it). */
export function idPartOfName(file: string): string {
  return SESSION_FILE.exec(path.basename(file))?.[1] ?? '';
}

/** The project folder (`tmp/<project>`) of a transcript. */
export function projectFolderOf(file: string): string {
  return path.dirname(path.dirname(file));
}
