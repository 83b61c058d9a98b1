// Where Claude Code keeps its transcripts: `${CLAUDE_CONFIG_DIR:-~/.claude}/projects/<slug>/<session
// uuid>.jsonl`, the slug being the session's working directory with every character other than an
// ASCII letter or digit replaced by `-`; a slug over 200 characters is cut to 200 and suffixed with
// `-` and a hash of the path (the client's own rule; the suffix is not needed here: the first 200
// characters pick the folders, the transcript's `cwd` decides). A session started in a subfolder
// has its own slug, which starts with the repo's slug and a `-`.
import os from 'node:os';
import path from 'node:path';
import type { Env } from '../../../paths.js';

export const SLUG_LIMIT = 200;

export function claudeConfigDir(env: Env): string {
  const fromEnv = env.CLAUDE_CONFIG_DIR;
  if (fromEnv && fromEnv.length > 0) return path.resolve(fromEnv);
  return path.join(env.HOME && env.HOME.length > 0 ? env.HOME : os.homedir(), '.claude');
}

export function claudeProjectsDir(env: Env): string {
  return path.join(claudeConfigDir(env), 'projects');
}

export function claudeSessionsDir(env: Env): string {
  return path.join(claudeConfigDir(env), 'sessions');
}

/** The slug without the hash suffix a long one gets. */
export function claudeSlug(directory: string): string {
  return directory.replace(/[^a-zA-Z0-9]/g, '-');
}

/** Whether a folder of `projects/` may hold sessions of `root` or one of its subfolders (the slug is lossy: the cwd decides). */
export function mayHoldSessionsOf(folderName: string, root: string): boolean {
  const slug = claudeSlug(root);
  if (slug.length >= SLUG_LIMIT) return folderName.startsWith(slug.slice(0, SLUG_LIMIT));
  return folderName === slug || folderName.startsWith(`${slug}-`);
}

const SESSION_FILE = /^[0-9a-fA-F][0-9a-fA-F-]{7,63}\.jsonl$/;

/** `projects/<slug>/<uuid>.jsonl`: subagent transcripts (`<session>/subagents/…`) are deeper and never match. */
export function isClaudeTranscript(file: string, projectsDir: string): boolean {
  return SESSION_FILE.test(path.basename(file)) && path.dirname(path.dirname(file)) === projectsDir;
}
