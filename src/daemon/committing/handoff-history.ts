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
  const latest = latestCommits(log.stdout);
  for (const file of paths) {
    const holder = latest.get(file);
    if (holder && atHead.has(file) && !dirty.has(file)) found.set(file, holder);
  }
  return found;
}

/**
 * daemon.commit "ref": path → the latest commit of the side ref that touched it, for docs the
 * ref's tip holds with the bytes the work tree has (the work tree is not the ref's, so git status cannot tell).
 */
export async function committedOnRef(root: string, ref: string, paths: readonly string[], env?: Env): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (paths.length === 0) return found;
  const folders = [...new Set(paths.map((file) => file.split('/').slice(0, -1).join('/') || '.'))];
  const [tree, log, hashed] = await Promise.all([
    runGit(root, ['ls-tree', '-r', '-z', `${ref}^{commit}`, '--', ...folders], { env }),
    runGit(root, ['log', '--no-show-signature', '--format=%x00%H', '--name-only', '--no-renames', `${ref}^{commit}`, '--', ...folders], {
      env,
    }),
    runGit(root, ['hash-object', '--', ...paths], { env }),
  ]);
  if (!tree.ok || !log.ok || !hashed.ok) return found;
  const blobs = new Map<string, string>();
  for (const entry of tree.stdout.split('\0')) {
    const match = /^\d{6} blob ([0-9a-f]+)\t(.+)$/s.exec(entry);
    if (match) blobs.set(match[2]!, match[1]!);
  }
  const latest = latestCommits(log.stdout);
  const inWorkTree = hashed.stdout.split('\n');
  paths.forEach((file, index) => {
    const holder = latest.get(file);
    if (holder && blobs.get(file) === inWorkTree[index]) found.set(file, holder);
  });
  return found;
}

/** `\0<hash>\n\n<name>\n<name>\n` per commit, newest first → each name's newest commit. */
function latestCommits(logOutput: string): Map<string, string> {
  const latest = new Map<string, string>();
  for (const record of logOutput.split('\0')) {
    const [hash, ...names] = record.split('\n').filter((line) => line.length > 0);
    if (!hash) continue;
    for (const name of names) if (!latest.has(name)) latest.set(name, hash);
  }
  return latest;
}
