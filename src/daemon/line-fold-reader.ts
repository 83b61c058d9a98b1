// The reader every other agent's source uses: the same IncrementalLineReader as ai-zen's own
// sessions (bytes read = bytes appended), updates queued one at a time, and a pure fold that the
// source writes — one JSON line in, the next state out (or the reason the line is skipped). A new
// agent writes the fold, not the reading.
import { IncrementalLineReader, type IncrementalReaderOptions, type RawLine } from './incremental-reader.js';
import type { SessionReader, SessionState, SessionUpdate, SkipNotice } from './session-source.js';

export interface LineFold {
  /** The state of the file with no line read yet. */
  empty(file: string): SessionState;
  /**
   * Folds one parsed JSON line into the state (pure). A string is why the line was skipped (logged);
   * lines of kinds the source does not care about return the state unchanged.
   */
  fold(state: SessionState, line: unknown, raw: RawLine): SessionState | string;
}

export function createLineFoldReader(file: string, fold: LineFold, options: IncrementalReaderOptions = {}): SessionReader {
  return new LineFoldReader(file, fold, options);
}

class LineFoldReader implements SessionReader {
  private current: SessionState;
  private readonly lines: IncrementalLineReader;
  /** Watcher events and the reconcile pass may ask at once: one read at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly folder: LineFold,
    options: IncrementalReaderOptions,
  ) {
    this.current = folder.empty(file);
    this.lines = new IncrementalLineReader(file, options);
  }

  get state(): SessionState {
    return this.current;
  }

  get counters() {
    return this.lines.counters;
  }

  update(): Promise<SessionUpdate> {
    const next = this.queue.then(() => this.readAppended());
    this.queue = next.catch(() => {});
    return next;
  }

  private async readAppended(): Promise<SessionUpdate> {
    const previous = this.current;
    const skipped: SkipNotice[] = [];
    let state = previous;
    const skip = (lineNumber: number, offset: number, reason: string) => {
      skipped.push({ file: this.file, lineNumber, offset, reason });
      state = { ...state, skippedCount: state.skippedCount + 1 };
    };
    const result = await this.lines.read({
      reset: () => (state = this.folder.empty(this.file)),
      line: (raw) => {
        if (raw.text.trim() === '') return;
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw.text);
        } catch {
          return skip(raw.lineNumber, raw.offset, 'not JSON');
        }
        const next = this.folder.fold(state, parsed, raw);
        if (typeof next === 'string') return skip(raw.lineNumber, raw.offset, next);
        state = next;
      },
      oversized: ({ lineNumber, offset, bytes }) => skip(lineNumber, offset, `line of ${bytes} bytes is too long`),
    });
    this.current = state;
    return {
      state,
      previous,
      reset: result.reset,
      missing: result.missing,
      bytesRead: result.bytesRead,
      checkBytesRead: result.checkBytesRead,
      linesRead: result.linesRead,
      skipped,
      overflowStarted: !previous.overflowed && state.overflowed,
      usageChanged: state.latestUsage !== previous.latestUsage,
      handoffs: [],
      compactionsSeen: result.reset ? 0 : Math.max(0, (state.compactions ?? 0) - (previous.compactions ?? 0)),
      stamp: result.stamp,
    };
  }
}
