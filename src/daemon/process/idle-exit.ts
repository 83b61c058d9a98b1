// An enabled repo's daemon is started by the next agent session there (daemon-autostart), so it need
// not stay resident once its repo has gone quiet: twenty repos touched in a week were twenty Node
// processes for good. It exits by itself after `daemon.idleExitMinutes` with no live session and
// nothing pending; what it did is on disk (handoff lines, foreign records), and the next start reads it.
import type { Logger } from 'pino';

export interface IdleExitOptions {
  /** How long the repo must be quiet; 0: never exit. */
  readonly idleMs: number;
  /** Why the daemon must stay now (a live session, a handoff running, …), or null when nothing holds it. */
  readonly reasonToStay: () => Promise<string | null>;
  /** Called once, when the repo has been quiet for `idleMs`. */
  readonly exit: (reason: string) => void;
  readonly logger: Logger;
  /** How often to look; default a quarter of `idleMs`, between 1 s and 60 s. */
  readonly checkEveryMs?: number;
  readonly now?: () => number;
}

export interface IdleExit {
  /** Something happened that a live session does (a hook, a statusline reading): the quiet period starts again. */
  touch(): void;
  close(): void;
}

export function watchForIdleExit(options: IdleExitOptions): IdleExit {
  const now = options.now ?? Date.now;
  let lastBusy = now();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  let lastReason: string | null = 'starting';
  if (options.idleMs <= 0) return { touch() {}, close() {} };
  const every = options.checkEveryMs ?? Math.min(60_000, Math.max(1000, Math.floor(options.idleMs / 4)));

  const check = async () => {
    timer = null;
    const reason = await options.reasonToStay().catch((error: unknown) => {
      // A check that fails keeps the daemon: exiting on a doubt could leave a session unprotected.
      options.logger.warn({ err: error }, 'idle check failed; staying up');
      return 'the idle check failed';
    });
    if (closed) return;
    const quietFor = now() - lastBusy;
    if (reason === null && quietFor >= options.idleMs) {
      const minutes = Math.round((options.idleMs / 60_000) * 100) / 100;
      closed = true;
      options.exit(`idle: no live session and nothing pending for ${minutes} min (daemon.idleExitMinutes)`);
      return;
    }
    if (reason !== null) lastBusy = now();
    // Said when it changes (a session starts or ends, a handoff runs): why the daemon is still up, or that it will go.
    if (reason !== lastReason) options.logger.info({ reason: reason ?? 'nothing: exits when idle long enough' }, 'idle check');
    lastReason = reason;
    arm();
  };
  const arm = () => {
    if (closed) return;
    timer = setTimeout(() => void check(), every);
    // The daemon's sockets and watchers keep it alive; this timer alone never should.
    timer.unref();
  };
  arm();
  return {
    touch() {
      lastBusy = now();
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
