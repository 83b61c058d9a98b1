// How tools find what a path names, always inside the project root (src/fs/confine.ts does the
// real work). Two views: what a path leads to (read, edit, copy source: symlinks followed), and
// the entry itself (rm, rename: a symlink is removed or moved, never what it points at).
import path from 'node:path';
import { resolveInsideRoot } from '../../fs/confine.js';
import { protectedPathReason, type ProtectedWrite } from '../../fs/protected-paths.js';

export type Located = { ok: true; absolute: string; relative: string } | { ok: false; reason: string };

/** Where `target` leads, symlinks followed; refused when that is outside the root. */
export async function locateTarget(root: string, target: string): Promise<Located> {
  if (target.trim() === '') return { ok: false, reason: 'the path is empty' };
  const found = await resolveInsideRoot(root, target);
  if (!found.ok) return { ok: false, reason: `refused: ${found.reason}` };
  return found;
}

/** The directory entry `target` names (its folder resolved, its last component not followed). */
export async function locateEntry(root: string, target: string): Promise<Located> {
  const parts = target.split(/[\\/]+/).filter((part) => part !== '');
  const name = parts.at(-1);
  if (name === undefined || name === '.' || name === '..')
    return { ok: false, reason: `${target || '(empty)'} does not name a file or folder` };
  const folder = await resolveInsideRoot(root, path.isAbsolute(target) ? path.dirname(target) : parts.slice(0, -1).join('/') || '.');
  if (!folder.ok) return { ok: false, reason: `refused: ${folder.reason}` };
  const absolute = path.join(folder.absolute, name);
  const relative = path.join(folder.relative, name);
  return { ok: true, absolute, relative };
}

/** `locateTarget`, and refused when that is ai-zen's or git's own state (T1, src/fs/protected-paths.ts). */
export async function locateChangeable(root: string, target: string, kind: ProtectedWrite): Promise<Located> {
  const found = await locateTarget(root, target);
  return found.ok ? refuseProtected(root, found, kind) : found;
}

/** `locateEntry`, and refused when the entry is ai-zen's or git's own state (T1). */
export async function locateChangeableEntry(root: string, target: string): Promise<Located> {
  const found = await locateEntry(root, target);
  return found.ok ? refuseProtected(root, found, 'other') : found;
}

async function refuseProtected(root: string, found: Located & { ok: true }, kind: ProtectedWrite): Promise<Located> {
  const reason = await protectedPathReason(root, found.relative, kind);
  return reason === null ? found : { ok: false, reason: `refused: ${reason}` };
}
