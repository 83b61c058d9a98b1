// The one reader of every session source (ai-zen's own, Claude Code, Codex): the
// IncrementalLineReader (bytes read = bytes appended), updates queued one at a time, and a pure fold
// that the source writes — one line in, the next state out (or the reason the line is skipped). A
// new agent writes the fold, not the reading. What holds for every source is kept here, once:
// blank lines are no lines, a file the fold refuses (T2) is read no further, a line that changes
// the last handoff is a handoff seen, and a reset starts the fold over from `empty`.
import fsSync from 'node:fs';
import {
  type FileStamp,
  IncrementalLineReader,
  type IncrementalReaderOptions,
  type RawLine,
  type ReadOptions,
} from './incremental-reader.js';
import type { HandoffSeenInSession, SessionReader, SessionState, SessionUpdate, SkipNotice } from './session-source.js';

export interface LineFold {
  /** The state of the file with no line read yet. */
  empty(file: string): SessionState;
  /**
   * Folds one line (its raw text: the fold parses it) into the state, purely. A string is why the
   * line is skipped (logged, counted); lines of kinds the source does not care about return the
   * state unchanged. `note` logs something about a line that is kept (ai-zen: a first line that is
   * not a header).
   */
  fold(state: SessionState, line: RawLine, note: (reason: string) => void): SessionState | string;
}

export interface LineFoldReaderOptions extends IncrementalReaderOptions {
  /**
   * Asked before each read until it answers true: whether the file is this repo's at all (Codex
   * decides from a rollout's head). false: another repo's, marked `otherRepo` and never read; null:
   * not decidable yet (its first line is still being written), asked again by the next read.
   */
  readonly decideOwner?: (file: string) => Promise<boolean | null>;
}

export function createLineFoldReader(file: string, fold: LineFold, options: LineFoldReaderOptions = {}): SessionReader {
  return new LineFoldReader(file, fold, options);
}

/** `JSON.parse` of one line, or undefined when it is not JSON (JSON itself has no undefined). */
export function parseJsonLine(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

class LineFoldReader implements SessionReader {
  private current: SessionState;
  private readonly lines: IncrementalLineReader;
  /** Watcher events and the reconcile pass may ask at once: one read at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Reads asked for and not yet settled (the one under way included). */
  private pending = 0;
  /** Until the owner is decided (true from the start when nobody has to decide it). */
  private owned: boolean;

  constructor(
    readonly file: string,
    private readonly folder: LineFold,
    private readonly options: LineFoldReaderOptions,
  ) {
    this.current = folder.empty(file);
    this.lines = new IncrementalLineReader(file, options);
    this.owned = options.decideOwner === undefined;
  }

  get state(): SessionState {
    return this.current;
  }

  get counters() {
    return this.lines.counters;
  }

  get keepsFileOpen(): boolean {
    return this.lines.keepsFileOpen;
  }

  release(): void {
    this.lines.release();
  }

  stampNow(): FileStamp | null {
    return this.lines.stampNow();
  }

  update(options: ReadOptions = {}): Promise<SessionUpdate> {
    // None under way: read at once, so a plain append is read and folded within the event that
    // announced it, a turn of the microtask queue sooner (bench g).
    const next = this.pending === 0 ? this.readAppended(options) : this.queue.then(() => this.readAppended(options));
    this.pending += 1;
    const settled = () => {
      this.pending -= 1;
    };
    this.queue = next.then(settled, settled);
    return next;
  }

  private async readAppended(options: ReadOptions): Promise<SessionUpdate> {
    const previous = this.current;
    if (!this.owned && this.options.decideOwner) {
      const owned = await this.options.decideOwner(this.file);
      if (owned !== true) {
        // Another repo's: done for good. Not decidable yet: the next event or pass asks again.
        if (owned === false) this.current = { ...previous, otherRepo: true };
        return nothingRead(this.current, previous, owned === null && !fsSync.existsSync(this.file));
      }
      this.owned = true;
    }
    const file = this.file;
    const skipped: SkipNotice[] = [];
    const handoffs: HandoffSeenInSession[] = [];
    let state = previous;
    let line: RawLine | null = null;
    const skip = (lineNumber: number, offset: number, reason: string) => {
      skipped.push({ file, lineNumber, offset, reason });
      state = { ...state, skippedCount: state.skippedCount + 1 };
    };
    const note = (reason: string) => {
      if (line) skipped.push({ file, lineNumber: line.lineNumber, offset: line.offset, reason });
    };
    const result = await this.lines.read(
      {
        // The reader starts over, and so does everything derived from the file.
        reset: () => (state = this.folder.empty(file)),
        line: (raw) => {
          // A refused file is read no further: said once (by the refusing line's skip notice), not per line.
          if (state.refusedBecause !== undefined || raw.text.trim() === '') return;
          line = raw;
          const next = this.folder.fold(state, raw, note);
          if (typeof next === 'string') return skip(raw.lineNumber, raw.offset, next);
          const before = state;
          state = next;
          if (next.refusedBecause !== undefined) return skip(raw.lineNumber, raw.offset, `the file is skipped: ${next.refusedBecause}`);
          if (next.lastHandoff !== before.lastHandoff && next.lastHandoff !== null) handoffs.push(next.lastHandoff);
        },
        oversized: ({ lineNumber, offset, bytes }) => skip(lineNumber, offset, `line of ${bytes} bytes is too long`),
      },
      options,
    );
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
      handoffs,
      compactionsSeen: result.reset ? 0 : Math.max(0, (state.compactions ?? 0) - (previous.compactions ?? 0)),
      stamp: result.stamp,
      ...(result.stampLater ? { stampLater: true as const } : {}),
    };
  }
}

function nothingRead(state: SessionState, previous: SessionState, missing: boolean): SessionUpdate {
  return {
    state,
    previous,
    reset: null,
    missing,
    bytesRead: 0,
    checkBytesRead: 0,
    linesRead: 0,
    skipped: [],
    overflowStarted: false,
    usageChanged: false,
    compactionsSeen: 0,
    handoffs: [],
    stamp: null,
  };
}
