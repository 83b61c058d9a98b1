// Lock names are hashes of real paths: the same repo or session reached through a symlink or a
// relative path gets the same lock, and the name stays short enough for any socket address.
import fs from 'node:fs';
import path from 'node:path';
import { sha256Hex } from './sha256.js';

export const LOCK_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The single-instance lock of the daemon of one repository (D1). */
export function daemonLockName(repoRoot: string): string {
  return `daemon-${hashPath(realPathOf(repoRoot))}`;
}

/** Held by the live ai-zen process that has this session open (ownership: the daemon leaves its migration to it). */
export function sessionLockName(sessionFile: string): string {
  return `session-${hashPath(realPathOf(sessionFile))}`;
}

/** A short stable hex digest of a path's real location (sha256 prefix). */
export function hashRealPath(target: string, length = 24): string {
  return sha256Hex(realPathOf(target)).slice(0, length);
}

function hashPath(realPath: string): string {
  return sha256Hex(realPath).slice(0, 24);
}

/** Real path of the target, or of its folder plus its name when the file does not exist yet. */
function realPathOf(target: string): string {
  const absolute = path.resolve(target);
  try {
    // The system's realpath(3): one call, where the JavaScript one walks each component (every hook run names its socket).
    return fs.realpathSync.native(absolute);
  } catch {
    try {
      return path.join(fs.realpathSync.native(path.dirname(absolute)), path.basename(absolute));
    } catch {
      return absolute;
    }
  }
}
