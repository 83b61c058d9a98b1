// Where Qwen Code keeps its transcripts (checked with @qwen-code/qwen-code 0.24.4):
// `<runtime>/projects/<slug>/chats/<session uuid>.jsonl`, where <runtime> is `$QWEN_RUNTIME_DIR`,
// else Qwen's own folder `${QWEN_HOME:-~/.qwen}`, and the slug is the session's working directory
// with every character other than an ASCII letter or digit replaced by `-` (no length cap). A
// session started in a subfolder has its own slug, which starts with the repo's and a `-`. Beside
// the chats, `${QWEN_HOME:-~/.qwen}/sessions/<pid>.json` names the session of each running
// interactive `qwen` (kit/session-registry.ts). Not followed: a `runtimeOutputDir` set in Qwen's settings.
import path from 'node:path';
import type { Env } from '../../../paths.js';
import { agentHome } from '../kit/agent-home.js';
import { isProjectTranscript, UUID_SESSION_FILE } from '../kit/project-folders.js';

/** `${QWEN_HOME:-~/.qwen}`: Qwen Code's own folder (settings.json, sessions/, and by default projects/). */
export function qwenHome(env: Env): string {
  return agentHome(env, 'QWEN_HOME', '.qwen');
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

/** `projects/<slug>/chats/<uuid>.jsonl`; a `<uuid>.runtime.json` beside it, or anything deeper, never matches. */
export function isQwenTranscript(file: string, projectsDir: string): boolean {
  return isProjectTranscript(file, projectsDir, UUID_SESSION_FILE, 'chats');
}
