// One way out of the daemon (the cline hub's coordinator): `stop`, SIGTERM and SIGINT all call
// shutdown(), which runs the cleanup ONCE (every caller shares its promise) under a deadline.
// A second signal while it runs means "now": exit at once. `exit` is injected so tests can see it.
import type { Logger } from 'pino';
import { EXIT_FAILURE, EXIT_FORCED, EXIT_OK } from '../../exit-codes.js';

export interface ShutdownCoordinatorOptions {
  /** Stops everything in order; may wait for a running migration. */
  readonly cleanup: (reason: string) => Promise<void>;
  readonly exit: (code: number) => void;
  /** After this the process exits even if the cleanup has not finished. */
  readonly deadlineMs: number;
  readonly logger: Logger;
}

export interface ShutdownCoordinator {
  /** Starts the shutdown (or joins the one under way); resolves once the cleanup ended. */
  shutdown(reason: string): Promise<void>;
  readonly shuttingDown: boolean;
  /** A signal arrived: the first starts the shutdown, the second forces the exit. */
  signal(name: NodeJS.Signals): void;
  /** Routes SIGTERM and SIGINT to signal(); returns the remover. */
  installSignalHandlers(target?: NodeJS.Process): () => void;
}

export function createShutdownCoordinator(options: ShutdownCoordinatorOptions): ShutdownCoordinator {
  const { logger } = options;
  let running: Promise<void> | null = null;
  let exited = false;
  const exitOnce = (code: number) => {
    if (exited) return;
    exited = true;
    options.exit(code);
  };

  function shutdown(reason: string): Promise<void> {
    running ??= (async () => {
      logger.info({ reason }, 'daemon shutting down');
      const deadline = setTimeout(() => {
        logger.error({ reason, deadlineMs: options.deadlineMs }, 'shutdown did not finish in time; exiting now');
        exitOnce(EXIT_FORCED);
      }, options.deadlineMs);
      deadline.unref();
      let code = EXIT_OK;
      try {
        await options.cleanup(reason);
      } catch (error) {
        logger.error({ err: error, reason }, 'cleanup failed during shutdown');
        code = EXIT_FAILURE;
      } finally {
        clearTimeout(deadline);
      }
      exitOnce(code);
    })();
    return running;
  }

  function signal(name: NodeJS.Signals): void {
    if (running) {
      logger.warn({ signal: name }, 'second signal during shutdown; exiting now');
      exitOnce(EXIT_FORCED);
      return;
    }
    void shutdown(name);
  }

  return {
    shutdown,
    get shuttingDown() {
      return running !== null;
    },
    signal,
    installSignalHandlers(target: NodeJS.Process = process) {
      const onTerm = () => signal('SIGTERM');
      const onInt = () => signal('SIGINT');
      target.on('SIGTERM', onTerm);
      target.on('SIGINT', onInt);
      return () => {
        target.off('SIGTERM', onTerm);
        target.off('SIGINT', onInt);
      };
    },
  };
}
