// Where Gemini CLI keeps its sessions (checked with 0.61): `<home>/.gemini/tmp/<project>/chats/
// session-<YYYY-MM-DDTHH-mm>-<first 8 of the session id>.jsonl`, `<home>` being GEMINI_CLI_HOME (the
// client's own override) or the user's home. `<project>` is a short name the client gives each
// project root (its basename, made unique: `~/.gemini/projects.json`), and the folder's
// `.project_root` file names that root — which decides whose sessions a folder holds. A session's
// project root is the folder `gemini` started in, so a session in a subfolder of the repo has a
// folder of its own. Subagents write `chats/<parent id>/<id>.jsonl`, deeper: never a session here.
import os from 'node:os';
import path from 'node:path';
import type { Env } from '../../../paths.js';

export function geminiDir(env: Env): string {
  const fromEnv = env.GEMINI_CLI_HOME;
  const home = fromEnv && fromEnv.length > 0 ? path.resolve(fromEnv) : env.HOME && env.HOME.length > 0 ? env.HOME : os.homedir();
  return path.join(home, '.gemini');
}

/** `<home>/.gemini/tmp`: one folder per project root. */
export function geminiTmpDir(env: Env): string {
  return path.join(geminiDir(env), 'tmp');
}

/** The file in a project folder naming its root. */
export const PROJECT_ROOT_FILE = '.project_root';

/** `session-` + the start minute (`toISOString().slice(0, 16)`, `:` as `-`) + `-` + the id's first 8 characters. */
const SESSION_FILE = /^session-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-([0-9A-Za-z_-]{1,8})\.jsonl$/;

/** `tmp/<project>/chats/session-….jsonl`, and nothing deeper. */
export function isGeminiTranscript(file: string, tmpDir: string): boolean {
  const chats = path.dirname(file);
  return SESSION_FILE.test(path.basename(file)) && path.basename(chats) === 'chats' && path.dirname(path.dirname(chats)) === tmpDir;
}

/** The part of the session id the file name carries (its first 8 characters, as the client writes it). */
export function idPartOfName(file: string): string {
  return SESSION_FILE.exec(path.basename(file))?.[1] ?? '';
}

/** The project folder (`tmp/<project>`) of a transcript. */
export function projectFolderOf(file: string): string {
  return path.dirname(path.dirname(file));
}
