// No loops, no noise (X3, issue 10 §6), for another agent's sessions: no handoff in a session's
// first two minutes (graceSeconds) unless it is over 95%, or a point short of where the agent
// compacts by itself (waiting longer would let the compaction win); at most 3 handoffs per session
// in 15 minutes, then one notice that the daemon stopped trying; a session that was already above
// its threshold when the daemon started hands off only once it grew a further 10 points — capped a
// point short of the agent's compaction point and 100% (issue 19 §2: a target the session can never
// reach was shown), and once it grew at all when there is no room for 10 points.
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
  /** This crossing is the first reading the daemon has of a session that existed before the daemon started. */
  readonly firstSeen: boolean;
  /** Where the agent compacts by itself, in percent of the window (null: unknown). */
  readonly compactsAt?: number | null;
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
    const lastChance = Math.min(100, input.compactsAt ?? 100) - 1;
    if (memory.baseline !== null) {
      const target = Math.min(memory.baseline + STARTED_ABOVE_MARGIN, lastChance);
      const grown = target > memory.baseline ? input.percent >= target : input.percent > memory.baseline;
      if (!grown)
        return {
          go: false,
          reason:
            target > memory.baseline
              ? `first seen at ${memory.baseline}%, already over ${input.handoffAt}%: hands off once it reaches ${target}%`
              : `first seen at ${memory.baseline}%, already over ${input.handoffAt}%: hands off once it grows`,
        };
    }
    const graceMs = input.graceMs ?? this.graceMs;
    const urgent = input.percent > GRACE_OVERRIDE_PERCENT || input.percent >= lastChance;
    if (input.startedAtMs !== null && input.nowMs - input.startedAtMs < graceMs && !urgent) {
      return { go: false, reason: `started less than ${describeSeconds(graceMs)} ago: waiting`, retryAtMs: input.startedAtMs + graceMs };
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

function describeSeconds(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const words: Record<number, string> = { 60: 'a minute', 120: 'two minutes' };
  return words[seconds] ?? (seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} seconds`);
}
