// The listing strategy of agents that keep one folder per working directory under a common parent
// (Claude Code's and Qwen Code's `projects/<slug>`, pi's `sessions/--<path>--`): only the children
// whose name may be this repo's (or a subfolder's) are listed and watched, so another repo's
// transcripts are never read; the parent is watched for new ones, and its own parent until it exists.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { TranscriptFolders } from '../../watching/session-source.js';

/** A session file named by its uuid (Claude Code's, and Qwen Code's after it). */
export const UUID_SESSION_FILE = /^[0-9a-fA-F][0-9a-fA-F-]{7,63}\.jsonl$/;

/** The folder name Claude Code gives a working directory, and Qwen Code after it: each character but an ASCII letter or digit as `-`. */
export function dashSlug(directory: string): string {
  return directory.replace(/[^a-zA-Z0-9]/g, '-');
}

/**
 * Whether a folder may hold sessions of `root` or a subfolder of it: the root's slug, or the slug, `-`
 * and more (the slug is lossy: the transcript's cwd decides). A slug cut at `limit` only begins one.
 */
export function mayHoldDashSlug(folderName: string, root: string, limit = Number.POSITIVE_INFINITY): boolean {
  const slug = dashSlug(root);
  if (slug.length >= limit) return folderName.startsWith(slug.slice(0, limit));
  return folderName === slug || folderName.startsWith(`${slug}-`);
}

/** `<parent>/<project>/[<inner>/]<session file>`, its name matching `name`: a shallower or deeper file (a subagent's) never is. */
export function isProjectTranscript(file: string, parent: string, name: RegExp, inner?: string): boolean {
  const folder = path.dirname(file);
  if (inner !== undefined && path.basename(folder) !== inner) return false;
  return name.test(path.basename(file)) && path.dirname(inner === undefined ? folder : path.dirname(folder)) === parent;
}

export function projectFolders(parent: string, mayHoldSessions: (name: string) => boolean, inner?: string): TranscriptFolders {
  return {
    create: false,
    async list() {
      let names: string[];
      try {
        names = await fs.readdir(parent);
      } catch {
        // No session of the agent yet: its folder is watched until the parent appears.
        return { folders: [], parents: [parent, path.dirname(parent)] };
      }
      const projects = names.filter(mayHoldSessions).map((name) => path.join(parent, name));
      if (inner === undefined) return { folders: projects, parents: [parent] };
      // A project folder gets its inner folder (Qwen's chats/) a moment after it appears: it is watched until it has one.
      const found = await Promise.all(
        projects.map(async (project) =>
          (await fs.stat(path.join(project, inner)).catch(() => null))?.isDirectory() ? path.join(project, inner) : null,
        ),
      );
      return { folders: found.filter((folder): folder is string => folder !== null), parents: [parent, ...projects] };
    },
  };
}
