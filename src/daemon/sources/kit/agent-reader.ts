// The reader of an agent whose window is what it reports with each reading, else its model table
// (Codex, Copilot): its fold parses its own lines and says what each showed through
// kit/observations.ts, measured here by the agent's table and settings. The file's owner is decided
// before it is read (kit/owners.ts): another repo's transcript is never read.
import type { AgentWindowSettings } from '../../../config/agent-models.js';
import type { WatchedAgent } from '../../../config/agent-names.js';
import { createLineFoldReader } from '../../watching/line-fold-reader.js';
import type { SessionReader, SessionState } from '../../watching/session-source.js';
import { emptyFoldState, type Measure, measureOf } from './observations.js';

/** The window and thresholds of `model`, given the window the agent reported last (null: none yet). */
export type MeasureBy = (model: string | null, reported: number | null) => Measure;

/** An agent's fold of one line's raw text into the session state, or why the line is skipped. */
export interface AgentLineFold {
  readonly agent: WatchedAgent;
  /** What the fold keeps of its own (SessionState.details) before any line. */
  readonly details: object;
  /** The session's id, from the path: a session's identity is its file's name or folder. */
  sessionId(file: string): string;
  fold(state: SessionState, text: string, measure: MeasureBy): SessionState | string;
}

export function measureBy(agent: WatchedAgent, settings: AgentWindowSettings): MeasureBy {
  return (model, reported) => measureOf(agent, model, settings, { reported });
}

/** A session before its first line: the fold's id for the file, and its own bookkeeping. */
export function emptyLineFoldState(fold: AgentLineFold, file: string, measure: MeasureBy): SessionState {
  return emptyFoldState(fold.agent, file, fold.sessionId(file), measure(null, null), fold.details);
}

export function createAgentReader(
  file: string,
  fold: AgentLineFold,
  settings: AgentWindowSettings,
  decideOwner: (file: string) => Promise<boolean | null>,
): SessionReader {
  const measure = measureBy(fold.agent, settings);
  const lines = {
    empty: (name: string) => emptyLineFoldState(fold, name, measure),
    fold: (state: SessionState, raw: { text: string }) => fold.fold(state, raw.text, measure),
  };
  return createLineFoldReader(file, lines, { decideOwner });
}
