// What the agent's tools may not change (T1): ai-zen's own state under `.ai-zen/` (sessions, the
// latest-session pointer, logs, config, hooks, skills) and git's under `.git/`. A model that can
// write a session file can make the daemon act on a `handoff` line it invented; one that can write
// `.git/` can plant a hook. Reading stays allowed. The one exception is a handoff document that
// already exists (reserved by ai-zen): the self executor writes it during a handoff — where the
// HandoffGuard narrows every write to exactly that document — and R17 lets the agent rewrite it
// afterwards (the daemon does not commit a rewrite: it no longer matches the sealed sha256).
// `exec` is not confined by this, as by nothing else (R13): the tools are not a sandbox.
import { promises as fs } from 'node:fs';
import path from 'node:path';

const HANDOFF_DOC = /^\.ai-zen\/handoffs\/\d{8}-\d{6}-[A-Za-z0-9_-]{8}(?:-[1-9]\d{0,3})?\.md$/;

export type ProtectedWrite = 'replace-file' | 'other';

/**
 * Why the tools may not change `relative` (the real location relative to the real project root,
 * symlinks resolved), or null when they may. `replace-file`: the write or edit of one file's content.
 */
export async function protectedPathReason(root: string, relative: string, kind: ProtectedWrite): Promise<string | null> {
  const parts = relative.split(/[\\/]+/).filter((part) => part !== '' && part !== '.');
  // Case-insensitive: on macOS and Windows `.GIT` is `.git`.
  const owner = parts.map((part) => part.toLowerCase()).find((part) => part === '.git' || part === '.ai-zen');
  if (owner === undefined) return null;
  const shown = parts.join('/');
  if (owner === '.git') return `${shown} is inside .git/, which the agent's tools never change`;
  if (kind === 'replace-file' && HANDOFF_DOC.test(parts.join('/')) && (await isRegularFile(path.join(root, ...parts)))) return null;
  return `${shown} is inside .ai-zen/, ai-zen's own state, which the agent's tools never change (only an existing handoff document may be rewritten)`;
}

async function isRegularFile(file: string): Promise<boolean> {
  const stats = await fs.lstat(file).catch(() => null);
  return stats?.isFile() === true;
}
