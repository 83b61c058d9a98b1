// One Copilot CLI transcript (`session-state/<id>/events.jsonl`), read by the shared line-fold
// reader (bytes read = bytes appended) and folded into the daemon's SessionState. Its folder's owner
// is decided before the first read (CopilotOwnership): another repo's transcript is never read.
import path from 'node:path';
import { agentWindow, type AgentWindowSettings } from '../../../config/agent-models.js';
import type { IncrementalReaderOptions } from '../../watching/incremental-reader.js';
import { createLineFoldReader, type LineFold } from '../../watching/line-fold-reader.js';
import { agentThresholds, isOverThreshold, type SessionReader, type SessionState } from '../../watching/session-source.js';
import { type CopilotView, emptyCopilotView, foldCopilotLine } from './copilot-events.js';
import { copilotSessionIdOf } from './copilot-paths.js';
import type { CopilotOwnership } from './copilot-session-folders.js';

export type CopilotReaderSettings = AgentWindowSettings;

/** The view a Copilot session's state carries in `details.copilot`. */
export function copilotViewOf(state: SessionState): CopilotView | null {
  const view = state.details.copilot;
  return typeof view === 'object' && view !== null ? (view as CopilotView) : null;
}

export function copilotState(
  file: string,
  view: CopilotView,
  settings: CopilotReaderSettings,
  extra: { skippedCount: number; foreign: boolean },
): SessionState {
  const reading = view.reading;
  // Each model call states its prompt budget; the table is for before the first one.
  const window = agentWindow('copilot', view.model, {
    configured: settings.contextWindow,
    models: settings.models,
    reported: reading?.window,
  });
  const thresholds = agentThresholds('copilot', view.model, window, settings);
  const state: Omit<SessionState, 'overflowed'> = {
    kind: 'copilot',
    file,
    // The folder's name is the session's id (T2: identity from the path, not from a line).
    sessionId: copilotSessionIdOf(file),
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
    details: { copilot: view },
    thresholds,
    compactions: view.compactions,
    lastCompactionAt: view.lastCompactionAt,
    lastCompaction:
      view.compactions > 0
        ? { at: view.lastCompactionAt, preTokens: view.lastCompactionPreTokens, trigger: view.lastCompactionTrigger }
        : null,
    cwd: view.cwd,
    foreign: extra.foreign,
    startedAt: view.startedAt,
    firstReadingTokens: view.firstReadingTokens,
    ...(view.scripted === undefined ? {} : { scripted: view.scripted }),
  };
  return { ...state, overflowed: isOverThreshold(state) };
}

export function createCopilotSessionReader(
  file: string,
  ownership: CopilotOwnership,
  settings: CopilotReaderSettings,
  options: IncrementalReaderOptions = {},
): SessionReader {
  return createLineFoldReader(file, copilotLineFold(settings), { ...options, decideOwner: () => ownership.decide(path.dirname(file)) });
}

export function copilotLineFold(settings: CopilotReaderSettings): LineFold {
  return {
    empty: (file) => copilotState(file, emptyCopilotView(), settings, { skippedCount: 0, foreign: false }),
    fold(state, raw) {
      const view = copilotViewOf(state) ?? emptyCopilotView();
      const folded = foldCopilotLine(view, raw.text);
      if ('skip' in folded) return folded.skip;
      if (folded.view === view) return state;
      const next = copilotState(state.file, folded.view, settings, { skippedCount: state.skippedCount, foreign: false });
      // The same reading keeps the same usage object: a new latestUsage is a distinct reading.
      return folded.view.reading === view.reading ? { ...next, latestUsage: state.latestUsage } : next;
    },
  };
}
