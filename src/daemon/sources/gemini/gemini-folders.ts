// Which of Gemini CLI's project folders hold this repo's sessions: those whose `.project_root` names
// the repo or a folder inside it (and not a nested repo's: belongsToRepo). Only that small file is
// read per project folder, never a transcript. Their `chats/` folders are watched; `tmp/` and every
// project folder whose root is not known yet (just made) or is this repo's without `chats/` yet are
// watched as parents, so a session that starts later is seen.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../../../fs/read-regular-file.js';
import { belongsToRepo } from '../../../probe/innermost-repo.js';
import type { TranscriptFolders } from '../../watching/session-source.js';
import { PROJECT_ROOT_FILE } from './gemini-paths.js';

/** A path, in a few hundred bytes at most. */
const MAX_ROOT_BYTES = 8192;

/** The project root a project folder names (symlinks resolved, as the repo's root is), or null: not said (yet). */
export async function projectRootOf(projectFolder: string): Promise<string | null> {
  const read = await readRegularFile(path.join(projectFolder, PROJECT_ROOT_FILE), MAX_ROOT_BYTES).catch(() => null);
  if (!read?.ok) return null;
  const named = read.bytes.toString('utf8').trim();
  if (!path.isAbsolute(named) || named.includes('\0')) return null;
  return fs.realpath(named).catch(() => path.resolve(named));
}

/** Whether the project folder's sessions are this repo's: true, false (another repo's), null (not said yet). */
export async function projectIsRepos(projectFolder: string, root: string): Promise<boolean | null> {
  const projectRoot = await projectRootOf(projectFolder);
  return projectRoot === null ? null : belongsToRepo(root, projectRoot);
}

export function geminiFolders(tmpDir: string, root: string): TranscriptFolders {
  return {
    create: false,
    async list() {
      let names: string[];
      try {
        names = (await fs.readdir(tmpDir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
      } catch {
        // No Gemini session anywhere yet: its folders are watched until `tmp/` appears.
        return { folders: [], parents: [tmpDir, path.dirname(tmpDir), path.dirname(path.dirname(tmpDir))] };
      }
      const folders: string[] = [];
      const parents = [tmpDir];
      for (const name of names) {
        const project = path.join(tmpDir, name);
        const ours = await projectIsRepos(project, root);
        if (ours === false) continue;
        const chats = path.join(project, 'chats');
        const hasChats = await fs.stat(chats).then(
          (stat) => stat.isDirectory(),
          () => false,
        );
        if (ours && hasChats) folders.push(chats);
        else parents.push(project);
      }
      return { folders, parents };
    },
  };
}
