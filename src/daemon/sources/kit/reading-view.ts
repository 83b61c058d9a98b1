// The fold every agent shares once its own line parser has turned a transcript line into a view:
// the agent's readings (context tokens, output, the window it states), its compactions, its first
// reading and who runs it become the daemon's SessionState — the window and thresholds by the
// agent's table and settings, overflow by isOverThreshold. An agent brings only its view and the
// pure function that folds one line into it (Codex's rollout, Copilot's events).
import { agentWindow, type AgentWindowSettings } from '../../../config/agent-models.js';
import type { WatchedAgent } from '../../../config/agent-names.js';
import type { IncrementalReaderOptions } from '../../watching/incremental-reader.js';
import { createLineFoldReader, type LineFold } from '../../watching/line-fold-reader.js';
import { agentThresholds, isOverThreshold, type SessionReader, type SessionState } from '../../watching/session-source.js';

/** One reading of the context as the agent states it. */
export interface AgentReading {
  readonly contextTokens: number;
  readonly outputTokens: number;
  /** The window the agent stated with this reading (null: it did not). */
  readonly window?: number | null;
}

/** What an agent's line fold keeps: the fields the session state is made of. */
export interface ReadingView {
  readonly sessionId: string | null;
  readonly model: string | null;
  readonly cwd: string | null;
  readonly startedAt: string | null;
  readonly reading: AgentReading | null;
  /** Distinct readings seen (a repeated identical reading counts once). */
  readonly readingCount: number;
  /** The context of the first reading: a session that starts above its threshold hands off only after it grew. */
  readonly firstReadingTokens: number | null;
  readonly compactions: number;
  readonly lastCompactionAt: string | null;
  /** The context just before the last compaction: where the agent compacts. */
  readonly lastCompactionPreTokens?: number | null;
  /** Who asked for the last compaction (`auto`, `manual`; absent or null: not said). */
  readonly lastCompactionTrigger?: string | null;
  /** A script runs the session (`codex exec`, `copilot -p`): its last reply is the script's output. */
  readonly scripted?: boolean;
}

/** An agent's view of one transcript and the pure step that folds one line's raw text into it. */
export interface ReadingViewFold<V extends ReadingView> {
  readonly agent: WatchedAgent;
  empty(): V;
  /** The next view (the same object when the line changed nothing), or why the line is skipped. */
  fold(view: V, text: string): { readonly view: V } | { readonly skip: string };
  /** The session's id: from the path (a session's identity is its file's name or folder). */
  sessionId(file: string, view: V): string;
}

/** The view a session's state carries, in `details[agent]`. */
export function viewOf<V extends ReadingView>(state: SessionState, agent: WatchedAgent): V | null {
  const view = state.details[agent];
  return typeof view === 'object' && view !== null ? (view as V) : null;
}

export function readingViewState<V extends ReadingView>(
  parts: ReadingViewFold<V>,
  file: string,
  view: V,
  settings: AgentWindowSettings,
  extra: { readonly skippedCount: number; readonly foreign: boolean },
): SessionState {
  const reading = view.reading;
  // The agent states its window with each reading; the table is for before the first one.
  const window = agentWindow(parts.agent, view.model, {
    configured: settings.contextWindow,
    models: settings.models,
    reported: reading?.window,
  });
  const state: Omit<SessionState, 'overflowed'> = {
    kind: parts.agent,
    file,
    sessionId: parts.sessionId(file, view),
    model: view.model,
    maxContextTokens: window,
    latestUsage: reading
      ? { prompt_tokens: reading.contextTokens, completion_tokens: reading.outputTokens, total_tokens: reading.contextTokens }
      : null,
    closed: false,
    successorId: null,
    messageCount: view.readingCount,
    lastHandoff: null,
    skippedCount: extra.skippedCount,
    details: { [parts.agent]: view },
    thresholds: agentThresholds(parts.agent, view.model, window, settings),
    compactions: view.compactions,
    lastCompactionAt: view.lastCompactionAt,
    lastCompaction:
      view.compactions > 0
        ? { at: view.lastCompactionAt, preTokens: view.lastCompactionPreTokens ?? null, trigger: view.lastCompactionTrigger ?? null }
        : null,
    cwd: view.cwd,
    foreign: extra.foreign,
    startedAt: view.startedAt,
    firstReadingTokens: view.firstReadingTokens,
    ...(view.scripted === undefined ? {} : { scripted: view.scripted }),
  };
  return { ...state, overflowed: isOverThreshold(state) };
}

/** The view is folded (in `details[agent]`); the state is derived from it when a line changed it. */
export function readingViewLineFold<V extends ReadingView>(parts: ReadingViewFold<V>, settings: AgentWindowSettings): LineFold {
  return {
    empty: (file) => readingViewState(parts, file, parts.empty(), settings, { skippedCount: 0, foreign: false }),
    fold(state, raw) {
      const view = viewOf<V>(state, parts.agent) ?? parts.empty();
      const folded = parts.fold(view, raw.text);
      if ('skip' in folded) return folded.skip;
      if (folded.view === view) return state;
      const next = readingViewState(parts, state.file, folded.view, settings, { skippedCount: state.skippedCount, foreign: false });
      // The same reading keeps the same usage object: a new latestUsage is a distinct reading (an identical repeat counts once).
      return folded.view.reading === view.reading ? { ...next, latestUsage: state.latestUsage } : next;
    },
  };
}

/** A transcript's reader: the shared line-fold reader, after its owner is decided (another repo's is never read). */
export function createReadingViewReader<V extends ReadingView>(
  file: string,
  parts: ReadingViewFold<V>,
  settings: AgentWindowSettings,
  decideOwner: (file: string) => Promise<boolean | null>,
  options: IncrementalReaderOptions = {},
): SessionReader {
  return createLineFoldReader(file, readingViewLineFold(parts, settings), { ...options, decideOwner });
}
