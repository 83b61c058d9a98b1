// No loops, no noise (X3), for another agent's sessions: no handoff in a session's
// first two minutes (graceSeconds) unless it is over 95%, or a point short of where the agent
// compacts by itself (waiting longer would let the compaction win); at most 3 handoffs per session
// in 15 minutes, then one notice that the daemon stopped trying; a session that was already above
// its threshold when the daemon started hands off only once it grew a further 10 points — capped a
// point short of the agent's compaction point and 100% (a target the session can never
// reach was shown), and once it grew at all when there is no room for 10 points.
// One handoff per crossing is the monitor's part (it calls once per crossing). judgeCrossing is pure:
// the memory of a session goes in and comes out (the crossing state machine holds it).

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

/** What the guard remembers of one session, across its crossings. */
export interface GuardMemory {
  /** The percent the session was first seen at, when that was already over the threshold. */
  readonly baseline: number | null;
  readonly handoffs: readonly number[];
  readonly stoppedNoticeGiven: boolean;
}

/** Whether to hand off now, and what the guard remembers after it (a `go` is recorded as a handoff). Pure. */
export function judgeCrossing(
  memory: GuardMemory | null,
  input: GuardInput,
  defaultGraceMs: number = GRACE_MS,
): { readonly verdict: GuardVerdict; readonly memory: GuardMemory } {
  const known = memory ?? { baseline: input.firstSeen ? input.percent : null, handoffs: [], stoppedNoticeGiven: false };
  const lastChance = Math.min(100, input.compactsAt ?? 100) - 1;
  if (known.baseline !== null) {
    const target = Math.min(known.baseline + STARTED_ABOVE_MARGIN, lastChance);
    const grown = target > known.baseline ? input.percent >= target : input.percent > known.baseline;
    if (!grown)
      return {
        memory: known,
        verdict: {
          go: false,
          reason:
            target > known.baseline
              ? `first seen at ${known.baseline}%, already over ${input.handoffAt}%: hands off once it reaches ${target}%`
              : `first seen at ${known.baseline}%, already over ${input.handoffAt}%: hands off once it grows`,
        },
      };
  }
  const graceMs = input.graceMs ?? defaultGraceMs;
  const urgent = input.percent > GRACE_OVERRIDE_PERCENT || input.percent >= lastChance;
  if (input.startedAtMs !== null && input.nowMs - input.startedAtMs < graceMs && !urgent) {
    return {
      memory: known,
      verdict: { go: false, reason: `started less than ${describeSeconds(graceMs)} ago: waiting`, retryAtMs: input.startedAtMs + graceMs },
    };
  }
  const handoffs = known.handoffs.filter((at) => input.nowMs - at < HANDOFF_WINDOW_MS);
  if (handoffs.length >= MAX_HANDOFFS) {
    return {
      memory: { ...known, handoffs, stoppedNoticeGiven: true },
      verdict: {
        go: false,
        reason: `${MAX_HANDOFFS} handoffs in 15 minutes: stopped trying`,
        stoppedTrying: !known.stoppedNoticeGiven,
        final: true,
      },
    };
  }
  return { memory: { ...known, handoffs: [...handoffs, input.nowMs], baseline: null }, verdict: { go: true } };
}

/** The session went below its threshold: a later crossing is a real one (the baseline no longer holds). */
export function droppedBelow(memory: GuardMemory | null): GuardMemory | null {
  return memory === null ? null : { ...memory, baseline: null };
}

/** judgeCrossing with the memory of many sessions kept by file. */
export class HandoffLoopGuard {
  private readonly memory = new Map<string, GuardMemory>();

  constructor(private readonly graceMs: number = GRACE_MS) {}

  /** Whether to hand off now; a `go` is recorded as a handoff. */
  check(input: GuardInput): GuardVerdict {
    const { verdict, memory } = judgeCrossing(this.memory.get(input.file) ?? null, input, this.graceMs);
    this.memory.set(input.file, memory);
    return verdict;
  }

  /** The session went below its threshold: a later crossing is a real one (the baseline no longer holds). */
  dropped(file: string): void {
    const memory = droppedBelow(this.memory.get(file) ?? null);
    if (memory) this.memory.set(file, memory);
  }
}

function describeSeconds(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const words: Record<number, string> = { 60: 'a minute', 120: 'two minutes' };
  return words[seconds] ?? (seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} seconds`);
}
