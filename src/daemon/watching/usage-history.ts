// The last readings of each session's context: `ai-zen-daemon top` draws them as a
// sparkline. A bounded ring per session file, in memory only: a daemon started later begins with
// the reading it finds, and a session with thousands of turns costs the same as one with ten.
import { usagePercent } from '../../usage-percent.js';
import type { SessionUpdate } from './session-source.js';

/** One reading: when it was written, the share of the window, and what happened with it. */
export interface UsageReading {
  readonly at: string;
  readonly percent: number;
  /** The agent compacted its own history in the lines of this reading. */
  readonly compacted?: true;
  /** A handoff line was read with it (ai-zen's own; another agent's documents are the daemon's, see `handoffs`). */
  readonly handoff?: true;
}

/** Readings kept per session: a minute of one-second turns, or an afternoon of real ones. */
export const USAGE_HISTORY_LENGTH = 60;

export class UsageHistory {
  private readonly rings = new Map<string, UsageReading[]>();

  constructor(
    private readonly now: () => Date = () => new Date(),
    private readonly length = USAGE_HISTORY_LENGTH,
  ) {}

  /** Keeps the reading an update brought, if it brought one (new usage, a compaction or a handoff line). */
  record(update: SessionUpdate): void {
    const { state } = update;
    if (update.missing) {
      this.rings.delete(state.file);
      return;
    }
    const compacted = (update.compactionsSeen ?? 0) > 0;
    const handoff = update.handoffs.length > 0;
    if (!update.usageChanged && !compacted && !handoff) return;
    const tokens = state.latestUsage?.prompt_tokens ?? null;
    const window = state.maxContextTokens;
    if (tokens === null || window === null) return;
    let ring = this.rings.get(state.file);
    if (!ring) this.rings.set(state.file, (ring = []));
    ring.push({
      at: readingTime(update, this.now()).toISOString(),
      percent: usagePercent(tokens, window),
      ...(compacted ? { compacted: true as const } : {}),
      ...(handoff ? { handoff: true as const } : {}),
    });
    if (ring.length > this.length) ring.splice(0, ring.length - this.length);
  }

  /** Oldest first; empty for a session with no reading yet. */
  readings(file: string): readonly UsageReading[] {
    return this.rings.get(file) ?? [];
  }
}

/**
 * When the reading was written: the file's last change before it was read, never later than now.
 * A daemon that starts reads every old session at once; stamped with now, they would all look working.
 */
function readingTime(update: SessionUpdate, now: Date): Date {
  const written = update.stamp?.mtimeMs;
  return written !== undefined && written < now.getTime() ? new Date(written) : now;
}
