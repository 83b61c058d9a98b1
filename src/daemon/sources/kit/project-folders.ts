// The listing strategy of agents that keep one folder per working directory under a common parent
// (Claude Code's and Qwen Code's `projects/<slug>`, pi's `sessions/--<path>--`): only the children
// whose name may be this repo's (or a subfolder's) are listed and watched, so another repo's
// transcripts are never read; the parent is watched for new ones, and its own parent until it exists.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { TranscriptFolders } from '../../watching/session-source.js';

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
