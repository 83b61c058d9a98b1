// Which of Cline's session folders are this repo's. Every repo's sessions share one folder, so each
// session folder's owner is decided once (kit/owners.ts) from the `cwd` of its manifest, read from
// the manifest's head: another repo's conversation is never opened. A folder whose manifest is not
// written yet (or names no cwd yet) is watched (as a parent) until it is; one with none a minute after
// it was made is none.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readRegularHead } from '../../../fs/open-regular-file.js';
import { belongsToRepo } from '../../../probe/innermost-repo.js';
import { parseJsonLine } from '../../watching/line-fold-reader.js';
import type { TranscriptFolders } from '../../watching/session-source.js';
import { Owners, subfolders } from '../kit/owners.js';
import { manifestOf, SESSION_ID } from './cline-paths.js';

/** A folder without a manifest this long after its last change is not a session being made. */
const UNDECIDED_FOR_MS = 60_000;
/** The manifest's `cwd` comes before its prompt and metadata: within its first few hundred bytes. */
const MANIFEST_HEAD = 4 * 1024;
/** Where a long first field pushed it further: read once more, this far. */
const MANIFEST_HEAD_MAX = 64 * 1024;
/** `  "cwd": "<path>",` as JSON.stringify(…, null, 2) writes the manifest's own key. */
const CWD_LINE = /^ {2}"cwd": ("(?:[^"\\]|\\.)*"),?$/m;

export function clineOwnership(root: string, now: () => number = Date.now): Owners {
  return new Owners(async (folder) => {
    const cwd = await readManifestCwd(manifestOf(folder));
    if (typeof cwd === 'string') return belongsToRepo(root, cwd);
    // No manifest yet, or one caught mid-write (Cline writes some in place): asked again while the folder is new.
    const mtimeMs = (await fs.stat(folder).catch(() => null))?.mtimeMs;
    return mtimeMs !== undefined && now() - mtimeMs < UNDECIDED_FOR_MS ? null : false;
  });
}

/** The manifest's `cwd`; undefined: no manifest (yet); null: none usable in its head. */
export async function readManifestCwd(file: string): Promise<string | null | undefined> {
  // A small read first: this runs once for each of every repo's sessions, thousands at a listing.
  let match: RegExpExecArray | null = null;
  for (const bytes of [MANIFEST_HEAD, MANIFEST_HEAD_MAX]) {
    let head: Buffer;
    try {
      head = await readRegularHead(file, bytes);
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : null;
    }
    match = CWD_LINE.exec(head.toString('utf8'));
    if (match || head.length < bytes) break;
  }
  const cwd = match ? parseJsonLine(match[1]!) : null;
  return typeof cwd === 'string' && cwd.length > 0 ? cwd : null;
}

export function clineSessionFolders(sessions: string, ownership: Owners): TranscriptFolders {
  return {
    create: false,
    async list() {
      // No Cline session anywhere yet: the folders above are watched until `sessions/` appears.
      const exists = await fs.stat(sessions).then(
        (stat) => stat.isDirectory(),
        () => false,
      );
      if (!exists) return { folders: [], parents: [sessions, path.dirname(sessions), path.dirname(path.dirname(sessions))] };
      const folders = await subfolders(sessions, SESSION_ID);
      await ownership.decideAll(folders);
      // An undecided folder changes when its manifest arrives: watched like a parent, it is listed again then.
      const undecided = folders.filter((folder) => ownership.known(folder) === undefined);
      return { folders: folders.filter((folder) => ownership.known(folder) === true), parents: [sessions, ...undecided] };
    },
  };
}
