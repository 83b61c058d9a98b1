// Which session files stay open between reads (incremental-reader.ts): those being written to. An
// append to one then costs no open() and close() — in a daemon woken from idle, ~60 µs of the
// append → event latency (bench g). An agent appends in bursts with minutes of quiet between them
// (the model thinking), so a file stays open while it was written in the last few minutes, and at
// most MAX_KEPT_OPEN per watched folder stay open, the least recently read closed first: thousands
// of idle sessions hold no descriptor.
import { HOT_MS } from './check-schedule.js';
import type { FileStamp } from './incremental-reader.js';
import type { SessionReader } from './session-source.js';

/** A file not written to for this long is closed by the next pass: the check schedule's hot window. */
export const KEEP_OPEN_MS = HOT_MS;
/** Per watched folder: sessions written to at once, beyond any real use (an agent each). */
export const MAX_KEPT_OPEN = 32;

export interface KeptOpenEntry {
  readonly reader: SessionReader;
  /** The file as it was when the last read began. */
  readonly stamp: FileStamp | null;
}

export class KeptOpenFiles<Entry extends KeptOpenEntry> {
  /** In the order they were last read: the first is the least recent. */
  private readonly entries = new Set<Entry>();

  constructor(private readonly now: () => number) {}

  /** After a read: the most recent now; beyond the cap, the least recent is closed. */
  read(entry: Entry): void {
    this.entries.delete(entry);
    if (!entry.reader.keepsFileOpen) return;
    this.entries.add(entry);
    if (this.entries.size <= MAX_KEPT_OPEN) return;
    const oldest = this.entries.values().next().value as Entry;
    this.release(oldest);
  }

  /** Closes it now: its path may name another file, or the session needs no more reads. */
  release(entry: Entry): void {
    this.entries.delete(entry);
    entry.reader.release();
  }

  /** Each pass: files not written to within KEEP_OPEN_MS are closed. */
  closeQuiet(): void {
    const quietSince = this.now() - KEEP_OPEN_MS;
    for (const entry of this.entries) if (entry.stamp === null || entry.stamp.mtimeMs < quietSince) this.release(entry);
  }

  closeAll(): void {
    for (const entry of this.entries) this.release(entry);
  }

  get size(): number {
    return this.entries.size;
  }
}
