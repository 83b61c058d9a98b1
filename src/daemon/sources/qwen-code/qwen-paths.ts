// Where Qwen Code keeps its transcripts (checked with @qwen-code/qwen-code 0.24.4):
// `<runtime>/projects/<slug>/chats/<session uuid>.jsonl`, where <runtime> is `$QWEN_RUNTIME_DIR`,
// else Qwen's own folder `${QWEN_HOME:-~/.qwen}`, and the slug is the session's working directory
// with every character other than an ASCII letter or digit replaced by `-` (no length cap). A
// session started in a subfolder has its own slug, which starts with the repo's and a `-`. Beside
// the chats, `${QWEN_HOME:-~/.qwen}/sessions/<pid>.json` names the session of each running
// interactive `qwen` (qwen-liveness.ts). Not followed: a `runtimeOutputDir` set in Qwen's settings.
import os from 'node:os';
import path from 'node:path';
import type { Env } from '../../../paths.js';

/** `${QWEN_HOME:-~/.qwen}`: Qwen Code's own folder (settings.json, sessions/, and by default projects/). */
export function qwenHome(env: Env): string {
  const fromEnv = env.QWEN_HOME;
  if (fromEnv && fromEnv.length > 0) return path.resolve(fromEnv);
  return path.join(env.HOME && env.HOME.length > 0 ? env.HOME : os.homedir(), '.qwen');
}

/** `<runtime>/projects`: one folder per working directory a session ran in. */
export function qwenProjectsDir(env: Env): string {
  const runtime = env.QWEN_RUNTIME_DIR;
  return path.join(runtime && runtime.length > 0 ? path.resolve(runtime) : qwenHome(env), 'projects');
}

/** `${QWEN_HOME:-~/.qwen}/sessions`: the running interactive sessions, one `<pid>.json` each. */
export function qwenSessionsRegistry(env: Env): string {
  return path.join(qwenHome(env), 'sessions');
}

export function qwenSlug(directory: string): string {
  return directory.replace(/[^a-zA-Z0-9]/g, '-');
}

/** Whether a folder of `projects/` may hold sessions of `root` or one of its subfolders (the slug is lossy: the transcript's cwd decides). */
export function mayHoldSessionsOf(folderName: string, root: string): boolean {
  const slug = qwenSlug(root);
  return folderName === slug || folderName.startsWith(`${slug}-`);
}

const SESSION_FILE = /^[0-9a-fA-F][0-9a-fA-F-]{7,63}\.jsonl$/;

/** `projects/<slug>/chats/<uuid>.jsonl`; a `<uuid>.runtime.json` beside it, or anything deeper, never matches. */
export function isQwenTranscript(file: string, projectsDir: string): boolean {
  const chats = path.dirname(file);
  return SESSION_FILE.test(path.basename(file)) && path.basename(chats) === 'chats' && path.dirname(path.dirname(chats)) === projectsDir;
}
