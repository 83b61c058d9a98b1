// The repo a statusline or a hook is about, found without starting git (~10 ms a run): the nearest
// folder holding `.git` (a folder, or a worktree's file), as `git rev-parse --show-toplevel` finds it.
import { statSync } from 'node:fs';
import path from 'node:path';

/** The nearest folder at or above `folder` that holds `.git`; else `folder` itself. */
export function nearestRepo(folder: string): string {
  let current = path.resolve(folder);
  for (;;) {
    try {
      statSync(path.join(current, '.git'));
      return current;
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.resolve(folder);
      current = parent;
    }
  }
}
