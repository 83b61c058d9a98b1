// What a kill -9 in the middle of a handoff or a migration leaves for good (low), removed
// at the next start of the CLI or the daemon:
//  - an orphan successor: a new session file written by a migration (header, definition messages,
//    breakpoint) that no `migrated` line points to — the process died before the old session was
//    closed. The old session is still the live one and holds everything; the successor holds only
//    a copy of its definitions and the breakpoint, and nothing was said in it. A retry of the
//    migration reuses the document and writes a successor of its own.
//  - an orphan document: a handoff document that no `handoff` or `migrated` line names and git does
//    not hold — the process died after writing it and before sealing it (so it was never scanned
//    for secrets) and recording it. Its session still has the history it was made from.
// Nothing is removed that a live process owns (its session lock is held), that someone said
// something in, or that belongs to another agent's session (no ai-zen session names it).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Env, ProjectPaths } from '../paths.js';
import { runGit } from '../probe/run-git.js';
import { namesSession } from '../short-id.js';
import type { SessionLine } from './format.js';
import type { SessionStore } from './store.js';

export interface OrphanCleanupOptions {
  readonly paths: ProjectPaths;
  readonly store: SessionStore;
  /** Whether a live process owns the session file (its lock is held). */
  readonly isOwned: (sessionFile: string) => Promise<boolean>;
  readonly logger: Logger;
  readonly env?: Env;
}

/** A successor a migration wrote is small; a bigger file was used, and is never a candidate. */
const MAX_SUCCESSOR_BYTES = 256 * 1024;
const DOC_NAME = /^\d{8}-\d{6}-([A-Za-z0-9][A-Za-z0-9_-]{0,7})(?:-\d+)?\.md$/;

/** Removes orphan successors and orphan documents; returns the project-relative paths removed. Never throws. */
export async function removeOrphans(options: OrphanCleanupOptions): Promise<string[]> {
  const removed: string[] = [];
  try {
    const ids = await options.store.list();
    const read = memoRead(options.store);
    for (const file of [...(await orphanSuccessors(options, ids, read)), ...(await orphanDocuments(options, ids, read))]) {
      try {
        await fs.rm(file);
        removed.push(path.relative(options.paths.root, file).split(path.sep).join('/'));
      } catch (error) {
        options.logger.warn({ err: error, file }, 'could not remove what an interrupted migration left');
      }
    }
  } catch (error) {
    options.logger.warn({ err: error }, 'could not look for what an interrupted migration left');
  }
  if (removed.length > 0) options.logger.info({ removed }, 'removed the orphans of an interrupted handoff or migration');
  return removed;
}

type Reader = (id: string) => Promise<readonly SessionLine[] | null>;

function memoRead(store: SessionStore): Reader {
  const cache = new Map<string, Promise<readonly SessionLine[] | null>>();
  return (id) => {
    let lines = cache.get(id);
    if (!lines) {
      lines = store.read(id).then(
        (content) => content.lines,
        () => null,
      );
      cache.set(id, lines);
    }
    return lines;
  };
}

async function orphanSuccessors(options: OrphanCleanupOptions, ids: readonly string[], read: Reader): Promise<string[]> {
  const { store } = options;
  const pointer = await store.readLatestPointer().catch(() => null);
  const found: string[] = [];
  for (const id of ids) {
    const file = store.sessionFile(id);
    const stats = await fs.lstat(file).catch(() => null);
    if (!stats?.isFile() || stats.size > MAX_SUCCESSOR_BYTES || pointer?.id === id) continue;
    const content = await store.read(id).catch(() => null);
    const previousId = content?.header.previousId ?? null;
    if (!content || previousId === null || !ids.includes(previousId)) continue;
    // What writeMigration writes, and nothing more: definitions, then one user message (the breakpoint).
    const messages = content.lines.filter((line) => line.type === 'message');
    const said = messages.filter((line) => !line.definition);
    if (messages.length !== content.lines.length || said.length !== 1 || said[0]!.message.role !== 'user') continue;
    const previous = await read(previousId);
    if (!previous || previous.some((line) => line.type === 'migrated' && line.newId === id)) continue;
    if ((await options.isOwned(file)) || (await options.isOwned(store.sessionFile(previousId)))) continue;
    found.push(file);
  }
  return found;
}

async function orphanDocuments(options: OrphanCleanupOptions, ids: readonly string[], read: Reader): Promise<string[]> {
  const { paths, store } = options;
  const names = (await fs.readdir(paths.handoffs).catch(() => [] as string[])).filter((name) => DOC_NAME.test(name));
  if (names.length === 0) return [];
  const folder = path.relative(paths.root, paths.handoffs).split(path.sep).join('/');
  // What git holds (committed or staged) is the user's now, whatever the sessions say.
  const tracked = await runGit(paths.root, ['ls-files', '-z', '--', folder], { env: options.env });
  const inGit = new Set(tracked.ok ? tracked.stdout.split('\0').filter((entry) => entry.length > 0) : []);
  const found: string[] = [];
  for (const name of names) {
    const relative = `${folder}/${name}`;
    if (!tracked.ok || inGit.has(relative)) continue;
    const file = path.join(paths.handoffs, name);
    const stats = await fs.lstat(file).catch(() => null);
    // A 0-byte reservation is the leftover cleanup's (it waits for no session to be read).
    if (!stats?.isFile() || stats.size === 0) continue;
    const owners = ids.filter((id) => namesSession(DOC_NAME.exec(name)![1]!, id));
    // No ai-zen session names it: another agent's document (the daemon writes those), not ours to judge.
    if (owners.length === 0) continue;
    let keep = false;
    for (const id of owners) {
      if (await options.isOwned(store.sessionFile(id))) keep = true;
      const lines = await read(id);
      if (!lines || lines.some((line) => (line.type === 'handoff' || line.type === 'migrated') && line.path === relative)) keep = true;
      if (keep) break;
    }
    if (!keep) found.push(file);
  }
  return found;
}
