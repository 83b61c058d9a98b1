// What a kill -9 can leave behind, removed when the daemon starts:
//  - a 0-byte handoff document: the name is reserved by creating the file empty, then the executor
//    fills it; killed in between, the empty file stayed for good and pushed the next handoff to
//    `-2`. Removed unless a live process owns a session of that id (it may be filling it now).
//  - `<git dir>/ai-zen-commit-<pid>-<hex>.index` / `.msg`: the committer's scratch files, removed
//    when the process that made them is gone.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ProjectPaths } from '../../paths.js';
import { findGitDir } from '../../probe/find-git-dir.js';

export interface LeftoverCleanupOptions {
  readonly paths: ProjectPaths;
  /** Whether a live process owns the session file (its lock is held). */
  readonly isOwned: (sessionFile: string) => Promise<boolean>;
  readonly logger: Logger;
  /** Default: signal 0 to the pid. */
  readonly isAlive?: (pid: number) => boolean;
}

const DOC_NAME = /^\d{8}-\d{6}-([A-Za-z0-9][A-Za-z0-9_-]{0,7})(?:-\d+)?\.md$/;
const SCRATCH_NAME = /^ai-zen-commit-(\d+)-[0-9a-f]+\.(?:index|msg)(?:\.lock)?$/;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the leftovers; returns what it removed (project-relative or absolute paths). Never throws. */
export async function cleanLeftovers(options: LeftoverCleanupOptions): Promise<string[]> {
  const removed: string[] = [];
  const [docs, scratch] = await Promise.all([emptyDocs(options), deadScratch(options)]);
  for (const file of [...docs, ...scratch]) {
    try {
      await fs.rm(file);
      removed.push(file);
    } catch (error) {
      options.logger.warn({ err: error, file }, 'could not remove a leftover of an interrupted handoff');
    }
  }
  if (removed.length > 0) options.logger.info({ removed }, 'removed what an interrupted handoff or commit left behind');
  return removed;
}

async function emptyDocs(options: LeftoverCleanupOptions): Promise<string[]> {
  const { paths } = options;
  const names = await fs.readdir(paths.handoffs).catch(() => [] as string[]);
  const sessions = await fs.readdir(paths.sessions).catch(() => [] as string[]);
  const found: string[] = [];
  for (const name of names) {
    const match = DOC_NAME.exec(name);
    if (!match) continue;
    const file = path.join(paths.handoffs, name);
    const stats = await fs.lstat(file).catch(() => null);
    if (!stats?.isFile() || stats.size !== 0) continue;
    const prefix = match[1]!;
    const owners = sessions.filter((session) => session.startsWith(prefix) && session.endsWith('.jsonl'));
    let owned = false;
    for (const session of owners) if (await options.isOwned(path.join(paths.sessions, session))) owned = true;
    if (!owned) found.push(file);
  }
  return found;
}

async function deadScratch(options: LeftoverCleanupOptions): Promise<string[]> {
  const gitDir = await findGitDir(options.paths.root);
  if (!gitDir) return [];
  const alive = options.isAlive ?? processAlive;
  const names = await fs.readdir(gitDir).catch(() => [] as string[]);
  const found: string[] = [];
  for (const name of names) {
    const match = SCRATCH_NAME.exec(name);
    if (match && Number(match[1]) !== process.pid && !alive(Number(match[1]))) found.push(path.join(gitDir, name));
  }
  return found;
}
