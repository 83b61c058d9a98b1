// Which repo a session belongs to when repos nest (a submodule, a vendored clone, a worktree kept
// inside the repo): the innermost one. A session that ran in `outer/vendor/lib` where `lib` has its
// own `.git` is `lib`'s; were both daemons to act on it, it would be handed off twice.
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../paths.js';

/**
 * Whether a session that ran in `cwd` belongs to the repo at `root`: `cwd` is the root or inside it,
 * and no folder between them (`cwd` included) holds a `.git` of its own (a folder, or the file a
 * submodule or worktree has). Synchronous and a few lstat calls: asked once per session.
 */
export function belongsToRepo(root: string, cwd: string): boolean {
  if (!path.isAbsolute(cwd)) return false;
  const folder = path.resolve(cwd);
  if (!isInside(root, folder)) return false;
  for (let current = folder; current !== root && isInside(root, current); current = path.dirname(current)) {
    if (hasGitEntry(current)) return false;
    if (path.dirname(current) === current) break;
  }
  return true;
}

function hasGitEntry(folder: string): boolean {
  try {
    lstatSync(path.join(folder, '.git'));
    return true;
  } catch {
    return false;
  }
}
