// Confinement: where a path really lands, resolved the way the kernel would (`..` after a
// symlink goes to the parent of the link's target, not of the link), and whether that is
// inside the project root. Every tool path and every write of ours passes through here.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isInside } from '../paths.js';

export type Confined = { ok: true; absolute: string; relative: string } | { ok: false; reason: string };

/** What the walk found: the real location, and whether the last component is itself a symlink. */
export interface ResolvedLocation {
  readonly absolute: string;
  /** The target's last component exists and is a symlink (writes must refuse it). */
  readonly finalIsSymlink: boolean;
}

// Linux gives up after 40 links (ELOOP); so do we.
const MAX_LINK_HOPS = 40;

class Refusal extends Error {}

async function lstatOrNull(file: string): Promise<import('node:fs').Stats | null> {
  try {
    return await fs.lstat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

/**
 * Walks `target` component by component from `start`, following symlinks like the kernel.
 * `check` sees every position the walk reaches; it throws a Refusal to stop. Components
 * after the first missing one are joined lexically (nothing there can be a symlink yet).
 */
async function walk(start: string, target: string, hops: { count: number }, check: (position: string) => void): Promise<ResolvedLocation> {
  let position = path.isAbsolute(target) ? path.parse(target).root : start;
  const parts = target.split(/[\\/]+/).filter((part) => part !== '' && part !== '.');
  let finalIsSymlink = false;
  for (let index = 0; index < parts.length; index += 1) {
    const part = parts[index]!;
    const last = index === parts.length - 1;
    if (part === '..') {
      position = path.dirname(position);
      check(position);
      continue;
    }
    const next = path.join(position, part);
    const stats = await lstatOrNull(next);
    if (stats === null) {
      // Missing from here on: the rest is created by us, so it is plain folders and a file.
      position = path.resolve(next, ...parts.slice(index + 1));
      check(position);
      return { absolute: position, finalIsSymlink: false };
    }
    if (stats.isSymbolicLink()) {
      hops.count += 1;
      if (hops.count > MAX_LINK_HOPS) throw new Refusal('too many levels of symbolic links');
      const link = await fs.readlink(next);
      // The link's own target is resolved from the link's folder; its inner steps may pass
      // anywhere (an absolute link starts at /), only where it lands counts.
      const landed = await walk(position, link, hops, () => {});
      position = landed.absolute;
      if (last) finalIsSymlink = true;
    } else {
      position = next;
    }
    check(position);
  }
  return { absolute: position, finalIsSymlink };
}

/**
 * Where `target` (relative to `root`, or absolute) really lands, refusing anything outside
 * `root`. Once the walk is inside the root it may not step out of it, even to come back
 * (`../<root name>/x` is refused): that keeps the rule simple to state and to audit.
 */
export async function locateInsideRoot(
  root: string,
  target: string,
): Promise<{ ok: true; location: ResolvedLocation; root: string } | { ok: false; reason: string }> {
  if (target.includes('\0')) return { ok: false, reason: 'path contains a NUL byte' };
  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
  } catch (error) {
    return { ok: false, reason: `project root ${root} is not accessible (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  let entered = !path.isAbsolute(target);
  const check = (position: string): void => {
    const inside = isInside(realRoot, position);
    if (inside) entered = true;
    else if (entered) throw new Refusal(`${target} leads outside the project root`);
  };
  try {
    const location = await walk(realRoot, target, { count: 0 }, check);
    if (!isInside(realRoot, location.absolute)) return { ok: false, reason: `${target} is outside the project root` };
    return { ok: true, location, root: realRoot };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.message };
    return { ok: false, reason: `${target} cannot be resolved (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
}

/**
 * `absolute` is the real location (symlinks resolved, the target's own link included);
 * `relative` is that location relative to the real root ('' for the root itself).
 */
export async function resolveInsideRoot(root: string, target: string): Promise<Confined> {
  const found = await locateInsideRoot(root, target);
  if (!found.ok) return found;
  return { ok: true, absolute: found.location.absolute, relative: path.relative(found.root, found.location.absolute) };
}
