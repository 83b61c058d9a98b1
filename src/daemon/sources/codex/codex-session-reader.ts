// One Codex rollout, read by the shared line-fold reader (bytes read = bytes appended) and folded
// into the daemon's SessionState. The fold takes each line's raw text: most of a rollout's bytes
// are `response_item` lines (whole tool outputs, instructions), which it skips from their first
// bytes without parsing them.
//
// Before anything else, the rollout's owner is decided from its head (CodexOwnership): another
// repo's rollout is reported `foreign` after a few KB and never read again. The transcript is only
// ever read (X3).
import path from 'node:path';
import type { IncrementalReaderOptions } from '../../watching/incremental-reader.js';
import { createLineFoldReader, type LineFold } from '../../watching/line-fold-reader.js';
import { agentWindow, type AgentWindowSettings } from '../../../config/agent-models.js';
import { agentThresholds, isOverThreshold, type SessionReader, type SessionState } from '../../watching/session-source.js';
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

export type CodexReaderSettings = AgentWindowSettings;

export function codexState(
  file: string,
  view: CodexRolloutView,
  settings: CodexReaderSettings,
  extra: { skippedCount: number; foreign: boolean },
): SessionState {
  const reading = view.reading;
  // Codex states its window in every reading; the table is for before the first one.
  const window = agentWindow('codex', view.model, {
    configured: settings.contextWindow,
    models: settings.models,
    reported: reading?.window,
  });
  const thresholds = agentThresholds('codex', view.model, window, settings);
  const state: Omit<SessionState, 'overflowed'> = {
    kind: 'codex',
    file,
    sessionId: view.sessionId ?? codexSessionIdFromName(file),
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
    details: { codex: view },
    thresholds,
    compactions: view.compactions,
    lastCompactionAt: view.lastCompactionAt,
    lastCompaction:
      view.compactions > 0 ? { at: view.lastCompactionAt, preTokens: view.lastCompactionPreTokens ?? null, trigger: null } : null,
    cwd: view.cwd,
    foreign: extra.foreign,
    startedAt: view.startedAt,
    firstReadingTokens: view.firstReadingTokens,
    ...(view.scripted === undefined ? {} : { scripted: view.scripted }),
  };
  return { ...state, overflowed: isOverThreshold(state) };
}

/** A rollout's reader: the shared line-fold reader, after the rollout's owner is decided from its head. */
export function createCodexSessionReader(
  file: string,
  ownership: CodexOwnership,
  settings: CodexReaderSettings,
  options: IncrementalReaderOptions = {},
): SessionReader {
  return createLineFoldReader(file, codexLineFold(settings), { ...options, decideOwner: (name) => ownership.decide(name) });
}

/** The rollout view is folded (in `details.codex`); the state is derived from it when a line changed it. */
export function codexLineFold(settings: CodexReaderSettings): LineFold {
  return {
    empty: (file) => codexState(file, emptyCodexView(), settings, { skippedCount: 0, foreign: false }),
    fold(state, raw) {
      const view = codexViewOf(state) ?? emptyCodexView();
      const folded = foldCodexLine(view, raw.text);
      if ('skip' in folded) return folded.skip;
      if (folded.view === view) return state;
      const next = codexState(state.file, folded.view, settings, { skippedCount: state.skippedCount, foreign: false });
      // The same reading keeps the same usage: a new latestUsage is a distinct reading (an identical repeat counts once).
      return folded.view.reading === view.reading ? { ...next, latestUsage: state.latestUsage } : next;
    },
  };
}
