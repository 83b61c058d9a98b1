// One Codex rollout read incrementally (bytes read = bytes appended, as for ai-zen sessions) and
// folded into the daemon's SessionState. The transcript is only ever read (X3).
import path from 'node:path';
import { IncrementalLineReader, type IncrementalReaderOptions, type RawLine } from '../incremental-reader.js';
import { isOverflowed, type SessionReader, type SessionState, type SessionUpdate, type SkipNotice } from '../session-source.js';
import { emptyCodexView, foldCodexLine, type CodexRolloutView } from './codex-rollout.js';

/** `rollout-2026-12-03T05-43-02-<uuid>.jsonl` → the uuid (the session_meta line says it too). */
const ID_IN_NAME = /-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

export function codexSessionIdFromName(file: string): string {
  return ID_IN_NAME.exec(path.basename(file))?.[1] ?? path.basename(file, '.jsonl');
}

/** The view a Codex session's state carries in `details.codex`. */
export function codexViewOf(state: SessionState): CodexRolloutView | null {
  const view = state.details.codex;
  return typeof view === 'object' && view !== null ? (view as CodexRolloutView) : null;
}

export function emptyCodexState(file: string): SessionState {
  return stateFromView(file, emptyCodexView(), 0);
}

function stateFromView(file: string, view: CodexRolloutView, skippedCount: number): SessionState {
  const reading = view.reading;
  const state: Omit<SessionState, 'overflowed'> = {
    kind: 'codex',
    file,
    sessionId: view.sessionId ?? codexSessionIdFromName(file),
    model: view.model,
    maxContextTokens: reading?.window ?? null,
    latestUsage: reading ? { prompt_tokens: reading.contextTokens, completion_tokens: reading.outputTokens, total_tokens: reading.contextTokens } : null,
    closed: false,
    successorId: null,
    messageCount: view.readingCount,
    lastHandoff: null,
    skippedCount,
    details: { codex: view },
  };
  return { ...state, overflowed: isOverflowed(state) };
}

export class CodexSessionReader implements SessionReader {
  private current: SessionState;
  private view: CodexRolloutView = emptyCodexView();
  private readonly lines: IncrementalLineReader;
  /** Updates run one at a time: watcher events and the reconcile pass may ask at once. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly file: string,
    options: IncrementalReaderOptions = {},
  ) {
    this.current = emptyCodexState(file);
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
    let view = this.view;
    let skippedCount = previous.skippedCount;
    const skip = (lineNumber: number, offset: number, reason: string) => {
      skipped.push({ file: this.file, lineNumber, offset, reason });
      skippedCount += 1;
    };
    const take = (raw: RawLine) => {
      if (raw.text.trim() === '') return;
      const folded = foldCodexLine(view, raw.text);
      if ('skip' in folded) return skip(raw.lineNumber, raw.offset, folded.skip);
      view = folded.view;
    };
    const result = await this.lines.read({
      // The reader starts over, and so does everything derived from the file.
      reset: () => {
        view = emptyCodexView();
        skippedCount = 0;
      },
      line: take,
      // Codex's `compacted` line holds the whole replacement history; its ContextCompaction item says the same.
      oversized: ({ lineNumber, offset, bytes }) => skip(lineNumber, offset, `line of ${bytes} bytes is too long`),
    });
    this.view = view;
    const state = view === this.current.details.codex && skippedCount === previous.skippedCount ? previous : stateFromView(this.file, view, skippedCount);
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
      // A distinct reading (a repeated identical one counts once).
      usageChanged: view.readingCount !== (codexViewOf(previous)?.readingCount ?? 0),
      handoffs: [],
      stamp: result.stamp,
    };
  }
}
