// Which of Copilot CLI's session folders are this repo's. `session-state/` holds one folder per
// session of every repo on the machine, so each folder's owner is decided once, from the `cwd:` of
// its `workspace.yaml` (a few hundred bytes the client writes when it makes the session, before the
// transcript) — another repo's transcript is never opened. A folder whose workspace.yaml is not
// written yet is watched (as a parent) until it is; one that has none a minute after it was made is
// no session of a repo.
import { openRegularFile } from '../../../fs/open-regular-file.js';
import fsSync, { promises as fs } from 'node:fs';
import path from 'node:path';
import { mapLimited } from '../../../map-limited.js';
import { belongsToRepo } from '../../../probe/innermost-repo.js';
import type { TranscriptFolders } from '../../watching/session-source.js';
import { isSessionId, WORKSPACE_FILE } from './copilot-paths.js';

/** workspace.yaml files read at once while listing. */
const READS_AT_ONCE = 8;
/** A folder without a workspace.yaml this long after its last change is not a session being made. */
const UNDECIDED_FOR_MS = 60_000;
/** workspace.yaml is a few hundred bytes; more than this is not the client's. */
const WORKSPACE_LIMIT = 64 * 1024;

export class CopilotOwnership {
  private readonly owners = new Map<string, boolean>();
  readonly counters = { workspaceReads: 0 };

  constructor(
    private readonly root: string,
    private readonly now: () => number = Date.now,
  ) {}

  known(folder: string): boolean | undefined {
    return this.owners.get(folder);
  }

  /** true: this repo's; false: not; null: not decidable yet (its workspace.yaml is still to come). */
  async decide(folder: string): Promise<boolean | null> {
    const known = this.owners.get(folder);
    if (known !== undefined) return known;
    this.counters.workspaceReads += 1;
    const cwd = await readWorkspaceCwd(path.join(folder, WORKSPACE_FILE));
    if (cwd === undefined) {
      const mtimeMs = fsSync.statSync(folder, { throwIfNoEntry: false })?.mtimeMs;
      if (mtimeMs !== undefined && this.now() - mtimeMs < UNDECIDED_FOR_MS) return null;
      this.owners.set(folder, false);
      return false;
    }
    const own = cwd !== null && belongsToRepo(this.root, cwd);
    this.owners.set(folder, own);
    return own;
  }
}

/** The `cwd:` of a workspace.yaml; undefined: no such file (yet); null: no usable cwd in it. */
export async function readWorkspaceCwd(file: string): Promise<string | null | undefined> {
  let text: string;
  try {
    const handle = await openRegularFile(file);
    try {
      const buffer = Buffer.alloc(WORKSPACE_LIMIT);
      const { bytesRead } = await handle.read(buffer, 0, WORKSPACE_LIMIT, 0);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : null;
  }
  const line = text.split('\n').find((candidate) => candidate.startsWith('cwd:'));
  return line === undefined ? null : yamlScalar(line.slice('cwd:'.length).trim());
}

/** A one-line YAML scalar as the client writes a path: plain, "double-quoted" or 'single-quoted'. */
function yamlScalar(value: string): string | null {
  if (value.startsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(value);
      return typeof parsed === 'string' ? parsed : null;
    } catch {
      return null;
    }
  }
  if (value.startsWith("'")) return value.endsWith("'") && value.length >= 2 ? value.slice(1, -1).replace(/''/g, "'") : null;
  return value.length > 0 ? value : null;
}

export function copilotSessionFolders(sessionState: string, ownership: CopilotOwnership): TranscriptFolders {
  return {
    create: false,
    async list() {
      let names: string[];
      try {
        names = (await fs.readdir(sessionState, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
      } catch {
        return { folders: [], parents: [sessionState] };
      }
      const sessions = names.filter(isSessionId).map((name) => path.join(sessionState, name));
      const folders: string[] = [];
      const undecided: string[] = [];
      await mapLimited(sessions, READS_AT_ONCE, async (folder) => {
        const own = await ownership.decide(folder);
        if (own === true) folders.push(folder);
        else if (own === null) undecided.push(folder);
      });
      // An undecided folder changes when its workspace.yaml arrives: watched like a parent, it is listed again then.
      return { folders: folders.sort(), parents: [sessionState, ...undecided.sort()] };
    },
  };
}
