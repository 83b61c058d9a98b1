// Which of Copilot CLI's session folders are this repo's. `session-state/` holds one folder per
// session of every repo on the machine, so each folder's owner is decided once (kit/owners.ts), from
// the `cwd:` of its `workspace.yaml` (a few hundred bytes the client writes when it makes the
// session, before the transcript) — another repo's transcript is never opened. A folder whose
// workspace.yaml is not written yet is watched (as a parent) until it is; one that has none a minute
// after it was made is no session of a repo.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { belongsToRepo } from '../../../probe/innermost-repo.js';
import { parseJsonLine } from '../../watching/line-fold-reader.js';
import type { TranscriptFolders } from '../../watching/session-source.js';
import { readRegularHead } from '../../../fs/open-regular-file.js';
import { Owners, subfolders } from '../kit/owners.js';
import { SESSION_ID, WORKSPACE_FILE } from './copilot-paths.js';

/** A folder without a workspace.yaml this long after its last change is not a session being made. */
const UNDECIDED_FOR_MS = 60_000;
/** workspace.yaml is a few hundred bytes; more than this is not the client's. */
const WORKSPACE_LIMIT = 64 * 1024;

export function copilotOwnership(root: string, now: () => number = Date.now): Owners {
  return new Owners(async (folder) => {
    const cwd = await readWorkspaceCwd(path.join(folder, WORKSPACE_FILE));
    if (cwd !== undefined) return cwd !== null && belongsToRepo(root, cwd);
    const mtimeMs = (await fs.stat(folder).catch(() => null))?.mtimeMs;
    return mtimeMs !== undefined && now() - mtimeMs < UNDECIDED_FOR_MS ? null : false;
  });
}

/** The `cwd:` of a workspace.yaml; undefined: no such file (yet); null: no usable cwd in it. */
export async function readWorkspaceCwd(file: string): Promise<string | null | undefined> {
  let text: string;
  try {
    text = (await readRegularHead(file, WORKSPACE_LIMIT)).toString('utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : null;
  }
  const line = text.split('\n').find((candidate) => candidate.startsWith('cwd:'));
  return line === undefined ? null : yamlScalar(line.slice('cwd:'.length).trim());
}

/** A one-line YAML scalar as the client writes a path: plain, "double-quoted" or 'single-quoted'. */
function yamlScalar(value: string): string | null {
  if (value.startsWith('"')) {
    const parsed = parseJsonLine(value);
    return typeof parsed === 'string' ? parsed : null;
  }
  if (value.startsWith("'")) return value.endsWith("'") && value.length >= 2 ? value.slice(1, -1).replace(/''/g, "'") : null;
  return value.length > 0 ? value : null;
}

export function copilotSessionFolders(sessionState: string, ownership: Owners): TranscriptFolders {
  return {
    create: false,
    async list() {
      const sessions = await subfolders(sessionState, SESSION_ID);
      await ownership.decideAll(sessions);
      // An undecided folder changes when its workspace.yaml arrives: watched like a parent, it is listed again then.
      const undecided = sessions.filter((folder) => ownership.known(folder) === undefined);
      return { folders: sessions.filter((folder) => ownership.known(folder) === true), parents: [sessionState, ...undecided] };
    },
  };
}
