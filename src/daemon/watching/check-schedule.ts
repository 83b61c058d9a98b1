// Which open sessions a reconcile pass checks (one synchronous stat each, a read only on a
// difference). It must stay cheap with thousands of sessions: those that changed in the last few
// minutes (the hot set) are checked every pass; idle ones in a window that moves round a ring of
// every open session, each about every COLD_PERIOD_MS — an idle session whose event was lost is
// found a little later. A pass touches only the hot set and its window, never every session: run
// every few seconds, this code stays in V8's interpreter, where a walk over 1,000 map entries alone
// cost ~1.5 ms a pass (measured, bench c).
import type { FileStamp } from './incremental-reader.js';

/** A session file whose file changed this recently is checked on every pass. */
export const HOT_MS = 5 * 60_000;
/**
 * Each idle session is checked about this often. Only a lost event (an overflowed inotify queue)
 * makes such a check find anything, and each costs a stat (~30 µs here, in code too cold to be
 * optimised): at 60 s, 1,000 idle sessions cost 0.06% CPU, at 120 s 0.03% (bench c).
 */
const COLD_PERIOD_MS = 120_000;

export interface Scheduled {
  /** The file as it was when the last read began (null: not stamped yet, or missing). */
  readonly stamp: FileStamp | null;
  /** Its place in the ring; -1 while out of it. Kept by the schedule alone (a field, not a map lookup, for the pass's sake). */
  ringIndex: number;
}

export class CheckSchedule<Entry extends Scheduled> {
  /** Every open session, in no particular order: the cold window moves round it. */
  private readonly ring: Entry[] = [];
  /** Sessions whose file changed within HOT_MS when last read, or that could not be stamped. */
  private readonly hot = new Set<Entry>();
  private coldCursor = 0;

  constructor(private readonly now: () => number) {}

  /** Into the ring (a new session, or one back in the passes); nothing when it is there already. */
  add(entry: Entry): void {
    if (entry.ringIndex >= 0) return;
    entry.ringIndex = this.ring.length;
    this.ring.push(entry);
  }

  /** After a read: hot while its file changed within HOT_MS (or could not be stamped). */
  touched(entry: Entry): void {
    if (entry.stamp === null || entry.stamp.mtimeMs >= this.now() - HOT_MS) this.hot.add(entry);
  }

  /** Out of the ring and the hot set: a closed session needs no more checks, a vanished one none at all. */
  retire(entry: Entry): void {
    this.hot.delete(entry);
    const index = entry.ringIndex;
    if (index < 0) return;
    entry.ringIndex = -1;
    const last = this.ring.pop()!;
    if (last !== entry) {
      this.ring[index] = last;
      last.ringIndex = index;
    }
  }

  /** Visits what this pass (one every `intervalMs`) checks: every hot session, and the ring's next window of idle ones. */
  due(intervalMs: number, visit: (entry: Entry) => void): void {
    const hotSince = this.now() - HOT_MS;
    for (const entry of this.hot) {
      // Cooled down: from now on the ring's window covers it.
      if (entry.stamp !== null && entry.stamp.mtimeMs < hotSince) this.hot.delete(entry);
      else visit(entry);
    }
    const size = this.ring.length;
    const slice = Math.min(size, Math.ceil((size * intervalMs) / COLD_PERIOD_MS));
    const start = size === 0 ? 0 : this.coldCursor % size;
    for (let step = 0; step < slice; step += 1) {
      const entry = this.ring[(start + step) % size]!;
      if (!this.hot.has(entry)) visit(entry);
    }
    this.coldCursor = size === 0 ? 0 : (start + slice) % size;
  }
}
