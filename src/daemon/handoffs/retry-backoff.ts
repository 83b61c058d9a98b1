// When the daemon tries again a migration that failed (a failed auto-migration — the
// handoffs folder was a symlink, then fixed — stayed "failed" for good). Doubling from 5 s to
// 10 min: a cause that lasts costs a few attempts an hour; one fixed soon is noticed soon.
export const FIRST_RETRY_MS = 5_000;
export const MAX_RETRY_MS = 10 * 60_000;

/** Delay before attempt `failures + 1`, after `failures` (≥ 1) failed attempts. */
export function retryDelayMs(failures: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1));
}
