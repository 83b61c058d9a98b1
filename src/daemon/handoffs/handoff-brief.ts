// The brief of an agent's own handoff: the skill and the facts the agent reads with its own read
// tool, so the Stop hook's reason on the person's screen stays a few lines. One file per session in
// `.ai-zen/briefs/`, written fresh for each claim and removed once the handoff is done or given up.
// A cloned repo is untrusted: it may ship `.ai-zen/briefs` as a symlink or plant links in it, so
// the folder must be a real one of ours and the file is written by temp file and rename, never
// through a link. Not git-ignored: Gemini CLI's read_file refuses a git-ignored file.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ProjectPaths } from '../../paths.js';
import type { Facts } from '../../probe/facts.js';
import { renderFacts } from '../../probe/render-facts.js';
import { writeFileInside } from '../../fs/safe-write.js';
import { locateInsideRoot } from '../../fs/confine.js';
import { shortId } from '../../short-id.js';

/** What every brief carries after its own lines: the skill, then the facts, marked as material. */
export function briefMaterial(skillBody: string, facts: Facts): string[] {
  return [
    '--- handoff skill ---',
    skillBody,
    '--- end of handoff skill ---',
    '',
    'Facts captured by code just now (use them; do not invent others):',
    '',
    renderFacts(facts).trim(),
  ];
}

/** Where the brief of `sessionId` is: its short id (the reason stays short), safe characters only whatever the transcript said. */
export function handoffBriefPath(paths: ProjectPaths, sessionId: string): string {
  return path.join(paths.briefs, `${shortId(sessionId).replace(/[^A-Za-z0-9_-]/g, '_')}.md`);
}

/** The brief folder, made when missing; one that leads elsewhere, is a link, or is not ours is refused (an Error). */
async function ownFolder(paths: ProjectPaths): Promise<void> {
  // Before anything is made: a `.ai-zen` that is a link out of the repo gets no folder made in its target.
  const found = await locateInsideRoot(paths.root, paths.briefs);
  if (!found.ok) throw new Error(`refusing ${paths.briefs}: ${found.reason}`);
  if (found.location.finalIsSymlink) throw new Error(`refusing ${paths.briefs}: it is a symbolic link`);
  await fs.mkdir(paths.briefs, { recursive: true, mode: 0o700 });
  const stats = await fs.lstat(paths.briefs);
  if (stats.isSymbolicLink() || !stats.isDirectory()) throw new Error(`refusing ${paths.briefs}: not a folder`);
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) throw new Error(`refusing ${paths.briefs}: it belongs to another user`);
}

/** Writes the brief of `sessionId` atomically (mode 0600) and returns its real absolute path. */
export async function writeHandoffBrief(paths: ProjectPaths, sessionId: string, text: string): Promise<string> {
  await ownFolder(paths);
  const target = handoffBriefPath(paths, sessionId);
  // A link planted at the name is removed, never followed (rm takes the link itself).
  await fs.rm(target, { force: true });
  return writeFileInside(paths.root, target, text, { mode: 0o600 });
}

/** Removes the brief of `sessionId`; a folder that leads elsewhere is left alone (nothing of ours is there). */
export async function removeHandoffBrief(paths: ProjectPaths, sessionId: string): Promise<void> {
  if (!(await folderIsOurs(paths))) return;
  await fs.rm(handoffBriefPath(paths, sessionId), { force: true });
}

/** Removes every brief: at the daemon's start no agent is still reading one a claim of this daemon wrote. */
export async function removeAllHandoffBriefs(paths: ProjectPaths): Promise<void> {
  if (!(await folderIsOurs(paths))) return;
  const names = await fs.readdir(paths.briefs).catch(() => [] as string[]);
  // Only names of the form ai-zen gives (a short id): anything else there is not ours to remove.
  const ours = names.filter((name) => /^[A-Za-z0-9_-]{1,8}\.md$/.test(name));
  await Promise.all(ours.map((name) => fs.rm(path.join(paths.briefs, name), { force: true })));
}

async function folderIsOurs(paths: ProjectPaths): Promise<boolean> {
  const stats = await fs.lstat(paths.briefs).catch(() => null);
  if (!stats?.isDirectory()) return false;
  const found = await locateInsideRoot(paths.root, paths.briefs);
  return found.ok && !found.location.finalIsSymlink;
}
