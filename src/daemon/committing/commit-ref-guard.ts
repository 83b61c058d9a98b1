// Which side refs `commit: "ref"` may move (a cloned repo's config once named the user's `main`, a
// release tag, `refs/remotes/origin/main` and `refs/stash`, and the daemon moved them): only one in
// ai-zen's own namespaces, never a symbolic ref (an `origin/HEAD`-style link would move the ref it
// names), and an existing one only when its tip is a handoff commit — a tree of nothing but the
// handoff folder's documents, as ai-zen builds them.
import type { GitRun } from '../../probe/run-git.js';

/** Where a side ref of ai-zen's may live: a branch namespace of its own (pushable as is) and a ref namespace. */
export const AI_ZEN_REF_PREFIXES = ['refs/heads/ai-zen/', 'refs/ai-zen/'] as const;

export function isAiZenRef(ref: string): boolean {
  return AI_ZEN_REF_PREFIXES.some((prefix) => ref.startsWith(prefix) && ref.length > prefix.length);
}

type Git = (args: string[]) => Promise<GitRun>;

/** Why `ref` must not move (null: it may), given its tip (null: it does not exist yet). */
export async function refRefusal(git: Git, ref: string, tip: string | null, folder: readonly string[]): Promise<string | null> {
  if (!isAiZenRef(ref))
    return `${ref} is not a ref of ai-zen's own (${AI_ZEN_REF_PREFIXES.join(' or ')}); handoffs never move your branches, tags, remotes or stash`;
  const symbolic = await git(['symbolic-ref', '-q', ref]);
  if (symbolic.ok) return `${ref} is a symbolic ref (to ${symbolic.stdout.trim()}); handoffs move no ref through a link`;
  if (tip === null) return null;
  const type = await git(['cat-file', '-t', ref]);
  if (!type.ok || type.stdout.trim() !== 'commit')
    return `${ref} does not point at a commit; handoffs move only a ref of their own commits`;
  return (await holdsOnlyDocuments(git, tip, folder))
    ? null
    : `${ref} exists and its tip ${tip.slice(0, 7)} is not a handoff commit (it holds more than ${folder.join('/')}/); not moving it`;
}

/** The commit's tree is the handoff folder and nothing else, and the folder holds files only. */
async function holdsOnlyDocuments(git: Git, commit: string, folder: readonly string[]): Promise<boolean> {
  let tree = `${commit}^{tree}`;
  for (const part of folder) {
    const entries = await treeEntries(git, tree);
    const only = entries?.length === 1 ? entries[0] : undefined;
    if (only === undefined || only.type !== 'tree' || only.name !== part) return false;
    tree = only.id;
  }
  const documents = await treeEntries(git, tree);
  return documents?.every((entry) => entry.type === 'blob') === true;
}

async function treeEntries(git: Git, tree: string): Promise<{ type: string; id: string; name: string }[] | null> {
  const listed = await git(['ls-tree', '-z', tree]);
  if (!listed.ok) return null;
  const entries: { type: string; id: string; name: string }[] = [];
  for (const entry of listed.stdout.split('\0')) {
    if (entry === '') continue;
    const match = /^\d+ (\w+) ([0-9a-f]+)\t(.*)$/s.exec(entry);
    if (!match) return null;
    entries.push({ type: match[1]!, id: match[2]!, name: match[3]! });
  }
  return entries;
}
