// No loops, no noise (X3, issue 10 §6), for another agent's sessions: no handoff in a session's
// first two minutes unless it is over 95%; at most 3 handoffs per session in 15 minutes, then one
// notice that the daemon stopped trying; a session first seen above its threshold (it started
// there, or the daemon started after it got there) hands off only once it grew a further 10 points.
// One handoff per crossing is the monitor's part (it calls once per crossing). Pure but for the
// per-session memory it keeps.

export const GRACE_MS = 2 * 60_000;
export const GRACE_OVERRIDE_PERCENT = 95;
export const MAX_HANDOFFS = 3;
export const HANDOFF_WINDOW_MS = 15 * 60_000;
export const STARTED_ABOVE_MARGIN = 10;

export type GuardVerdict =
  | { readonly go: true }
  | {
      readonly go: false;
      readonly reason: string;
      readonly retryAtMs?: number;
      /** The first verdict after it stopped trying (the one to announce). */
      readonly stoppedTrying?: boolean;
      /** No later reading of this crossing changes the verdict. */
      readonly final?: boolean;
    };

export interface GuardInput {
  readonly file: string;
  readonly percent: number;
  readonly handoffAt: number;
  /** When the session's first line was written (ms), if known. */
  readonly startedAtMs: number | null;
  /** This crossing is the first reading the daemon has of the session. */
  readonly firstSeen: boolean;
  readonly nowMs: number;
  /** This agent's grace window (config `agents.<name>.graceSeconds`); else the guard's own. */
  readonly graceMs?: number;
}

interface Memory {
  /** The percent the session was first seen at, when that was already over the threshold. */
  baseline: number | null;
  handoffs: number[];
  stoppedNoticeGiven: boolean;
}

export class HandoffLoopGuard {
  private readonly memory = new Map<string, Memory>();

  constructor(private readonly graceMs: number = GRACE_MS) {}

  /** Whether to hand over now; a `go` is recorded as a handoff. */
  check(input: GuardInput): GuardVerdict {
    let memory = this.memory.get(input.file);
    if (!memory) {
      memory = { baseline: input.firstSeen ? input.percent : null, handoffs: [], stoppedNoticeGiven: false };
      this.memory.set(input.file, memory);
    }
    if (memory.baseline !== null && input.percent < memory.baseline + STARTED_ABOVE_MARGIN) {
      return {
        go: false,
        reason: `first seen at ${memory.baseline}%, already over ${input.handoffAt}%: hands off once it reaches ${memory.baseline + STARTED_ABOVE_MARGIN}%`,
      };
    }
    const graceMs = input.graceMs ?? this.graceMs;
    if (input.startedAtMs !== null && input.nowMs - input.startedAtMs < graceMs && input.percent <= GRACE_OVERRIDE_PERCENT) {
      return { go: false, reason: 'started less than two minutes ago: waiting', retryAtMs: input.startedAtMs + graceMs };
    }
    memory.handoffs = memory.handoffs.filter((at) => input.nowMs - at < HANDOFF_WINDOW_MS);
    if (memory.handoffs.length >= MAX_HANDOFFS) {
      const first = !memory.stoppedNoticeGiven;
      memory.stoppedNoticeGiven = true;
      return { go: false, reason: `${MAX_HANDOFFS} handoffs in 15 minutes: stopped trying`, stoppedTrying: first, final: true };
    }
    memory.handoffs.push(input.nowMs);
    memory.baseline = null;
    return { go: true };
  }

  /** The session went below its threshold: a later crossing is a real one (the baseline no longer holds). */
  dropped(file: string): void {
    const memory = this.memory.get(file);
    if (memory) memory.baseline = null;
  }
}
