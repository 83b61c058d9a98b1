// The one vocabulary of where a session stands: `status`, `sessions`, `top`, `ls` and every
// `--json` answer use these states and these words, and nothing else names them.
import { z } from 'zod';

/**
 * open (its agent runs it, below the point where it is handed off) · over-threshold (past that
 * point, the window not full) · overflowed (the window is full) · exited (no process runs it any
 * more and it was not handed off) · handed-off (its successor exists).
 */
export const SESSION_STATES = ['open', 'over-threshold', 'overflowed', 'exited', 'handed-off'] as const;
export const SessionStanding = z.enum(SESSION_STATES);
export type SessionStanding = z.infer<typeof SessionStanding>;

/** How a person reads each state (the `--json` answers carry the state itself). */
export const STATE_WORDS: Readonly<Record<SessionStanding, string>> = {
  open: 'open',
  'over-threshold': 'over the threshold',
  overflowed: 'window full',
  exited: 'exited',
  'handed-off': 'handed off',
};

/** What an open session is doing, as `top` shows it: a reading in the last minute, or none. */
export const ACTIVITY_WORDS = { working: 'working', idle: 'idle' } as const;

/** Folded out of the lists (`--all` shows them): nothing more will happen to these sessions. */
export function isFolded(state: SessionStanding | undefined): boolean {
  return state === 'exited' || state === 'handed-off';
}

/**
 * A session whose agent has no process any more is exited once its file has been quiet this
 * long: a probe can miss a process that started a moment ago (its registry file comes later).
 */
export const EXITED_QUIET_MS = 2 * 60_000;
