// Where Claude Code keeps its transcripts: `${CLAUDE_CONFIG_DIR:-~/.claude}/projects/<slug>/<session
// uuid>.jsonl`, the slug being the session's working directory with every character other than an
// ASCII letter or digit replaced by `-`; a slug over 200 characters is cut to 200 and suffixed with
// `-` and a hash of the path (the client's own rule; the suffix is not needed here: the first 200
// characters pick the folders, the transcript's `cwd` decides). A session started in a subfolder
// has its own slug, which starts with the repo's slug and a `-`.
import path from 'node:path';
import type { Env } from '../../../paths.js';
import { agentHome } from '../kit/agent-home.js';
import { dashSlug, isProjectTranscript, mayHoldDashSlug, UUID_SESSION_FILE } from '../kit/project-folders.js';

const SLUG_LIMIT = 200;

export function claudeConfigDir(env: Env): string {
  return agentHome(env, 'CLAUDE_CONFIG_DIR', '.claude');
}

export function claudeProjectsDir(env: Env): string {
  return path.join(claudeConfigDir(env), 'projects');
}

export function claudeSessionsDir(env: Env): string {
  return path.join(claudeConfigDir(env), 'sessions');
}

/** The slug without the hash suffix a long one gets. */
export const claudeSlug = dashSlug;

/** Whether a folder of `projects/` may hold sessions of `root` or one of its subfolders (the slug is lossy: the cwd decides). */
export function mayHoldSessionsOf(folderName: string, root: string): boolean {
  return mayHoldDashSlug(folderName, root, SLUG_LIMIT);
}

/** `projects/<slug>/<uuid>.jsonl`: subagent transcripts (`<session>/subagents/…`) are deeper and never match. */
export function isClaudeTranscript(file: string, projectsDir: string): boolean {
  return isProjectTranscript(file, projectsDir, UUID_SESSION_FILE);
}
