// Notices when the repository's state changes — HEAD moved, the index was written, a merge or
// rebase started or ended, index.lock came or went — by watching the git dir itself (fs.watch,
// no polling), debounced, so the facts cache and the handoff committer react without busy loops.
// Our own git calls run with optional locks off, so reading the state never writes what we watch.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Env } from '../../paths.js';
import { runGit } from '../../probe/run-git.js';

/** Entries of the git dir whose change can matter to the facts or to a pending commit. */
const WATCHED_NAMES = new Set([
  'HEAD',
  'index',
  'index.lock',
  'packed-refs',
  'MERGE_HEAD',
  'CHERRY_PICK_HEAD',
  'REVERT_HEAD',
  'rebase-merge',
  'rebase-apply',
]);

export interface GitWatch {
  /** The watched git dir; null outside a git repository (then nothing is watched). */
  readonly gitDir: string | null;
  /** Called once per burst of changes, after `debounceMs` of quiet. Returns the remover. */
  onChange(listener: () => void): () => void;
  close(): void;
}

export interface GitWatchOptions {
  readonly root: string;
  readonly env?: Env;
  readonly debounceMs?: number;
  readonly logger: Logger;
}

export async function watchGitState(options: GitWatchOptions): Promise<GitWatch> {
  const listeners = new Set<() => void>();
  const located = await runGit(options.root, ['rev-parse', '--absolute-git-dir'], { env: options.env });
  const gitDir = located.ok ? located.stdout.trim() : null;
  if (!gitDir) {
    options.logger.debug({ root: options.root }, 'not a git repository; git state is not watched');
    return { gitDir: null, onChange: () => () => {}, close() {} };
  }

  const debounceMs = options.debounceMs ?? 150;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const fire = () => {
    timer = null;
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        options.logger.warn({ err: error }, 'git change listener failed');
      }
    }
  };
  const changed = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(fire, debounceMs);
  };

  const watchers: fs.FSWatcher[] = [];
  const watch = (folder: string, accept: (name: string | null) => boolean): boolean => {
    try {
      const watcher = fs.watch(folder, { persistent: false }, (_event, name) => {
        if (accept(name === null ? null : String(name))) changed();
      });
      watcher.on('error', (error) => options.logger.warn({ err: error, folder }, 'git dir watch failed'));
      watchers.push(watcher);
      return true;
    } catch (error) {
      options.logger.warn({ err: error, folder }, 'cannot watch the git dir');
      return false;
    }
  };
  // Every move of HEAD (a commit on the branch, a reset) is written to logs/HEAD, even when
  // HEAD itself (a symbolic ref) and the index are untouched. A repo without commits has no
  // logs/ yet: it is picked up with the first change of the git dir.
  const logs = path.join(gitDir, 'logs');
  let logsWatched = false;
  const watchLogs = () => {
    if (!logsWatched && fs.existsSync(logs)) logsWatched = watch(logs, (name) => name === null || name === 'HEAD');
  };
  // A platform that gives no file name gets every change.
  watch(gitDir, (name) => {
    watchLogs();
    return name === null || WATCHED_NAMES.has(name);
  });
  watchLogs();

  return {
    gitDir,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
      listeners.clear();
    },
  };
}
