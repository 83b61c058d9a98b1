// Which handoff documents git already holds, unchanged, and in which commit — for the documents
// the daemon finds at startup. Three git calls for all of them, where asking commitHandoff about
// each would cost a dozen git processes per document on every start of the daemon.
import type { Env } from '../../paths.js';
import { runGit } from '../../probe/run-git.js';

/** Path (repo-relative, `/`) → the latest commit that touched it, for docs at HEAD and clean in the work tree. */
export async function committedHandoffs(root: string, paths: readonly string[], env?: Env): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (paths.length === 0) return found;
  const folders = [...new Set(paths.map((file) => file.split('/').slice(0, -1).join('/') || '.'))];
  const [status, tracked, log] = await Promise.all([
    runGit(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--', ...folders], { env }),
    runGit(root, ['ls-tree', '-r', '-z', '--name-only', 'HEAD', '--', ...folders], { env }),
    runGit(root, ['log', '--no-show-signature', '--format=%x00%H', '--name-only', '--no-renames', '--', ...folders], { env }),
  ]);
  if (!status.ok || !tracked.ok || !log.ok) return found;
  // Anything staged, modified, deleted or untracked is not (only) what a commit holds.
  const dirty = new Set(
    status.stdout
      .split('\0')
      .filter((entry) => entry.length > 3)
      .map((entry) => entry.slice(3)),
  );
  const atHead = new Set(tracked.stdout.split('\0').filter((entry) => entry.length > 0));
  // `\0<hash>\n\n<name>\n<name>\n` per commit, newest first.
  const latest = new Map<string, string>();
  for (const record of log.stdout.split('\0')) {
    const [hash, ...names] = record.split('\n').filter((line) => line.length > 0);
    if (!hash) continue;
    for (const name of names) if (!latest.has(name)) latest.set(name, hash);
  }
  for (const file of paths) {
    const holder = latest.get(file);
    if (holder && atHead.has(file) && !dirty.has(file)) found.set(file, holder);
  }
  return found;
}
