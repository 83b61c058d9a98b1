// Keeps the daemon's own files in the project while it runs. `rm -rf .ai-zen` or
// `git clean -fdx` under a running daemon removed `.ai-zen/.gitignore` — so the next `git add -A`
// would commit transcripts — and the daemon went on logging into the deleted `daemon.log`. Every
// few seconds (three stats when nothing is missing) both are made again — unless the repo itself
// was moved or deleted: then the daemon has nothing to watch, and making them again would put a
// stray `.ai-zen` where the repo was; it leaves instead.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { ensureGitignore } from '../../fs/project-gitignore.js';
import type { ProjectPaths } from '../../paths.js';

export interface ProjectKeeperOptions {
  readonly paths: ProjectPaths;
  readonly logger: Logger;
  /** Opens the log file again when it is gone; true when it did. */
  readonly reopenLog: () => Promise<boolean>;
  /** Default 5000 ms. */
  readonly intervalMs?: number;
  /** The repo's folder is gone or another one took its path (`why`): the daemon stops. */
  readonly onRepoGone: (why: string) => void;
}

export interface ProjectKeeper {
  /** One check now (the timer calls it too). */
  check(): Promise<void>;
  close(): void;
}

export async function keepProjectFiles(options: ProjectKeeperOptions): Promise<ProjectKeeper> {
  const { paths, logger } = options;
  const identity = await folderIdentity(paths.root);
  let gone = false;
  let running: Promise<void> | null = null;
  const check = (): Promise<void> => {
    running ??= (async () => {
      if (gone) return;
      const now = await folderIdentity(paths.root);
      if (now === null || (identity !== null && now !== identity)) {
        gone = true;
        const why =
          now === null ? `the repo ${paths.root} is gone (moved or deleted)` : `the repo ${paths.root} was replaced by another folder`;
        logger.warn({ root: paths.root }, `${why}; the daemon exits`);
        options.onRepoGone(why);
        return;
      }
      if (await options.reopenLog())
        logger.info({ log: path.join(paths.logs, 'daemon.log') }, 'the log file was removed; writing a new one');
      const gitignore = path.join(paths.aiZen, '.gitignore');
      if (
        !(await fs.lstat(gitignore).then(
          () => true,
          () => false,
        )) &&
        (await ensureGitignore(paths, logger))
      ) {
        logger.info({ file: gitignore }, '.ai-zen/.gitignore was removed; wrote it again so sessions and logs stay out of git');
      }
    })()
      .catch((error: unknown) => logger.warn({ err: error }, 'could not check the project files'))
      .finally(() => (running = null));
    return running;
  };
  const timer = setInterval(() => void check(), options.intervalMs ?? 5000);
  timer.unref();
  return { check, close: () => clearInterval(timer) };
}

/** The folder's device and inode (null: it is not there): a folder moved away and another made at its path differ. */
async function folderIdentity(folder: string): Promise<string | null> {
  const stats = await fs.stat(folder).catch(() => null);
  return stats?.isDirectory() ? `${stats.dev}:${stats.ino}` : null;
}
