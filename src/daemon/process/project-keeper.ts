// Keeps the daemon's own files in the project while it runs. `rm -rf .ai-zen` or
// `git clean -fdx` under a running daemon removed `.ai-zen/.gitignore` — so the next `git add -A`
// would commit transcripts — and the daemon went on logging into the deleted `daemon.log`. Every
// few seconds (two stats when nothing is missing) both are made again.
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
}

export interface ProjectKeeper {
  /** One check now (the timer calls it too). */
  check(): Promise<void>;
  close(): void;
}

export function keepProjectFiles(options: ProjectKeeperOptions): ProjectKeeper {
  const { paths, logger } = options;
  let running: Promise<void> | null = null;
  const check = (): Promise<void> => {
    running ??= (async () => {
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
