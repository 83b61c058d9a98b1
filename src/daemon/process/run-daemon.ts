// The daemon process: take the single-instance lock FIRST (a second node-ipc server on the same
// path would silently steal the live daemon's socket), then the log, then the daemon; every way
// out — `stop`, SIGTERM, SIGINT — goes through the one shutdown coordinator.
import { AiZenError } from '../../errors.js';
import { acquireLock, daemonLockName } from '../../lock/os-lock.js';
import { recordDaemonRepo } from './daemon-repo-record.js';
import { projectPaths, type Env } from '../../paths.js';
import { createDaemonLog } from './daemon-logger.js';
import { startDaemon, type Daemon } from './daemon.js';
import { EXIT_ALREADY_RUNNING, EXIT_FORCED } from '../../exit-codes.js';
import { forceExit } from './force-exit.js';
import { keepProjectFiles, type ProjectKeeper } from './project-keeper.js';
import { createShutdownCoordinator } from './shutdown-coordinator.js';
import { passStartGate } from './start-gate.js';
import { clearIdleExitNote, writeIdleExitNote } from './idle-exit-note.js';

export interface RunDaemonOptions {
  /** Real path of the project root. */
  readonly root: string;
  readonly env: Env;
  /** Readable logs on stderr too (`start --foreground`). */
  readonly foreground: boolean;
  readonly version: string;
  readonly exit?: (code: number) => void;
  /** How long the shutdown may take before the process exits anyway. Default 30 s. */
  readonly shutdownDeadlineMs?: number;
  readonly reconcileIntervalMs?: number;
  /**
   * Whether a session start would bring the daemon back (the repo is enabled): only then does it exit
   * after `daemon.idleExitMinutes` with nothing to do. Absent: it stays until stopped.
   */
  readonly comesBack?: () => Promise<boolean>;
}

export interface RunningDaemon {
  readonly pid: number;
  readonly socketPath: string;
  readonly logFile: string;
  /** Starts the shutdown (as `stop` does). */
  stop(reason: string): Promise<void>;
}

export async function runDaemon(options: RunDaemonOptions): Promise<RunningDaemon> {
  const { root, env } = options;
  // A forced exit (deadline, second signal) must end the process even with a thread stuck in the kernel.
  const exit = options.exit ?? ((code: number) => (code === EXIT_FORCED ? forceExit() : process.exit(code)));
  const lock = await acquireLock(daemonLockName(root), { env });
  if (!lock) throw new AiZenError('daemon', `a daemon is already running for ${root}`, { exitCode: EXIT_ALREADY_RUNNING });
  await passStartGate(env);

  let log;
  try {
    log = await createDaemonLog({ root, foreground: options.foreground });
  } catch (error) {
    await lock.release();
    throw error;
  }
  const { logger } = log;
  // Beside the socket and lock whose names are hashes: which repo they are, for doctor to say.
  await recordDaemonRepo(root, env).catch((error: unknown) => logger.warn({ err: error }, 'could not record the repo beside its socket'));
  let daemon: Daemon | null = null;
  let keeper: ProjectKeeper | null = null;
  /** The start under way: a `stop` it already answers (its socket listens first) waits for it, then closes what it made. */
  let starting: Promise<unknown> = Promise.resolve();
  const coordinator = createShutdownCoordinator({
    deadlineMs: options.shutdownDeadlineMs ?? 30_000,
    // The process's own voice, as `daemon running` and `daemon stopped` are: no component.
    logger,
    exit: (code) => {
      // The log's last lines before the process goes. The lock is NOT released here: the kernel
      // frees it with the process, so a free lock means the daemon is gone — what `stop` waits
      // for. Only an injected exit (the process lives on) releases it.
      void log.close().finally(async () => {
        if (options.exit) await lock.release();
        exit(code);
      });
    },
    cleanup: async () => {
      await starting.catch(() => {});
      keeper?.close();
      await daemon?.close();
    },
  });

  await clearIdleExitNote(projectPaths(root)).catch(() => {});
  const comesBack = options.comesBack;
  try {
    const started = startDaemon({
      root,
      env,
      logger,
      lock,
      version: options.version,
      logFile: log.file,
      requestStop: (reason) => void coordinator.shutdown(reason),
      ...(comesBack
        ? {
            comesBack,
            idleExit: (reason: string) => {
              // Said in the log (the shutdown line carries the reason) and in the repo, for `status` there.
              const note = { pid: process.pid, at: new Date().toISOString(), reason };
              void writeIdleExitNote(projectPaths(root), note)
                .catch((error: unknown) => logger.warn({ err: error }, 'could not leave the idle-exit note'))
                .finally(() => void coordinator.shutdown(reason));
            },
          }
        : {}),
      ...(options.reconcileIntervalMs ? { reconcileIntervalMs: options.reconcileIntervalMs } : {}),
    });
    starting = started;
    daemon = await started;
  } catch (error) {
    logger.error({ err: error }, 'the daemon could not start');
    await daemon?.close().catch(() => {});
    await lock.release();
    await log.close();
    throw error;
  }
  // A `stop` that came while it started has closed it already: nothing more to keep.
  if (!coordinator.shuttingDown)
    keeper = await keepProjectFiles({
      paths: projectPaths(root),
      logger: logger.child({ component: 'keeper' }),
      reopenLog: () => log.reopenIfGone(),
      onRepoGone: (why) => void coordinator.shutdown(why),
    });
  coordinator.installSignalHandlers();
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  process.on('uncaughtException', (error) => {
    // State is unknown now; the session files are whole at every step, so leave at once.
    logger.fatal({ err: error }, 'uncaught exception; the daemon exits');
    log.close().finally(() => exit(1));
  });
  // pino writes the pid on every line.
  logger.info({ socket: daemon.socketPath, log: log.file, foreground: options.foreground }, 'daemon running');
  return { pid: process.pid, socketPath: daemon.socketPath, logFile: log.file, stop: (reason) => coordinator.shutdown(reason) };
}
