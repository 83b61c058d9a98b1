// Finds the git dir the way git's discovery does — walk up from the folder to the first `.git`,
// a folder or a `gitdir: <path>` file (linked worktrees, submodules) — without spawning git:
// on a busy machine each extra `git rev-parse` costs as much as the rest of the probe.
// Returns null when unsure; the caller then asks `git rev-parse --absolute-git-dir`.
import { promises as fs } from 'node:fs';
import path from 'node:path';

export async function findGitDir(start: string): Promise<string | null> {
  let folder = path.resolve(start);
  for (;;) {
    const candidate = path.join(folder, '.git');
    const stats = await fs.stat(candidate).catch(() => null);
    if (stats?.isDirectory()) return (await looksLikeGitDir(candidate)) ? fs.realpath(candidate) : null;
    if (stats?.isFile()) return readGitFile(candidate);
    const parent = path.dirname(folder);
    if (parent === folder) return null;
    folder = parent;
  }
}

async function readGitFile(file: string): Promise<string | null> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  const match = /^gitdir: (.+)$/m.exec(text);
  if (!match?.[1]) return null;
  const gitDir = path.resolve(path.dirname(file), match[1].trim());
  return (await looksLikeGitDir(gitDir)) ? fs.realpath(gitDir) : null;
}

function looksLikeGitDir(folder: string): Promise<boolean> {
  return fs.access(path.join(folder, 'HEAD')).then(
    () => true,
    () => false,
  );
}
