// One Codex rollout, read incrementally (bytes read = bytes appended, the same IncrementalLineReader
// as ai-zen's own sessions) and folded into the daemon's SessionState. Not the shared line-fold
// reader: most of a rollout's bytes are `response_item` lines (whole tool outputs, instructions),
// which this fold skips from their first bytes without parsing them.
//
// Before anything else, the rollout's owner is decided from its head (CodexOwnership): another
// repo's rollout is reported `foreign` after a few KB and never read again. The transcript is only
// ever read (X3).
import fsSync from 'node:fs';
import path from 'node:path';
import { IncrementalLineReader, type IncrementalReaderOptions, type RawLine } from '../../incremental-reader.js';
import {
  isOverThreshold,
  type SessionReader,
  type SessionState,
  type SessionThresholds,
  type SessionUpdate,
  type SkipNotice,
} from '../../session-source.js';
import { emptyCodexView, foldCodexLine, type CodexRolloutView } from './codex-rollout.js';
import type { CodexOwnership } from './codex-rollout-folders.js';

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

export interface CodexReaderSettings {
  readonly thresholds: SessionThresholds;
  /** The window from config, over the one Codex reports. */
  readonly contextWindow: number | null;
}

export function codexState(
  file: string,
  view: CodexRolloutView,
  settings: CodexReaderSettings,
  extra: { skippedCount: number; foreign: boolean },
): SessionState {
  const reading = view.reading;
  const state: Omit<SessionState, 'overflowed'> = {
    kind: 'codex',
    file,
    sessionId: view.sessionId ?? codexSessionIdFromName(file),
    model: view.model,
    maxContextTokens: settings.contextWindow ?? reading?.window ?? null,
    latestUsage: reading
      ? { prompt_tokens: reading.contextTokens, completion_tokens: reading.outputTokens, total_tokens: reading.contextTokens }
      : null,
    closed: false,
    successorId: null,
    messageCount: view.readingCount,
    lastHandoff: null,
    skippedCount: extra.skippedCount,
    details: { codex: view },
    thresholds: settings.thresholds,
    compactions: view.compactions,
    lastCompactionAt: view.lastCompactionAt,
    cwd: view.cwd,
    foreign: extra.foreign,
    startedAt: view.startedAt,
  };
  return { ...state, overflowed: isOverThreshold(state) };
}

export class CodexSessionReader implements SessionReader {
  private current: SessionState;
  private view: CodexRolloutView = emptyCodexView();
  private own = false;
  private readonly lines: IncrementalLineReader;
  /** Updates run one at a time: watcher events and the reconcile pass may ask at once. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly ownership: CodexOwnership,
    private readonly settings: CodexReaderSettings,
    options: IncrementalReaderOptions = {},
  ) {
    this.current = codexState(file, this.view, settings, { skippedCount: 0, foreign: false });
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
    if (!this.own) {
      const own = await this.ownership.decide(this.file);
      if (own !== true) {
        // Another repo's: done for good. Not decidable yet (first line still being written): the next event or pass asks again.
        if (own === false) this.current = { ...previous, foreign: true };
        return nothingRead(this.current, previous, own === null && !fsSync.existsSync(this.file));
      }
      this.own = true;
    }
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
    const changed = view !== this.view || skippedCount !== previous.skippedCount;
    this.view = view;
    const state = changed ? codexState(this.file, view, this.settings, { skippedCount, foreign: false }) : previous;
    this.current = state;
    const before = codexViewOf(previous);
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
      usageChanged: view.readingCount !== (before?.readingCount ?? 0),
      compactionsSeen: result.reset ? 0 : Math.max(0, view.compactions - (before?.compactions ?? 0)),
      handoffs: [],
      stamp: result.stamp,
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
