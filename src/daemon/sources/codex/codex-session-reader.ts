// One Codex rollout as a reading view (kit/reading-view.ts): the fold takes each line's raw text —
// most of a rollout's bytes are `response_item` lines (whole tool outputs, instructions), which it
// skips from their first bytes without parsing them. Before anything else, the rollout's owner is
// decided from its head (CodexOwnership): another repo's rollout is reported `foreign` after a few
// KB and never read again. The transcript is only ever read.
import path from 'node:path';
import type { AgentWindowSettings } from '../../../config/agent-models.js';
import type { IncrementalReaderOptions } from '../../watching/incremental-reader.js';
import type { SessionReader, SessionState } from '../../watching/session-source.js';
import { createReadingViewReader, type ReadingViewFold, viewOf } from '../kit/reading-view.js';
import { type CodexRolloutView, emptyCodexView, foldCodexLine } from './codex-rollout.js';
import type { CodexOwnership } from './codex-rollout-folders.js';

/** `rollout-2026-12-03T05-43-02-<uuid>.jsonl` → the uuid (the session_meta line says it too). */
const ID_IN_NAME = /-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

export function codexSessionIdFromName(file: string): string {
  return ID_IN_NAME.exec(path.basename(file))?.[1] ?? path.basename(file, '.jsonl');
}

export const codexRolloutFold: ReadingViewFold<CodexRolloutView> = {
  agent: 'codex',
  empty: emptyCodexView,
  fold: foldCodexLine,
  sessionId: (file, view) => view.sessionId ?? codexSessionIdFromName(file),
};

/** The view a Codex session's state carries in `details.codex`. */
export function codexViewOf(state: SessionState): CodexRolloutView | null {
  return viewOf<CodexRolloutView>(state, 'codex');
}

export function createCodexSessionReader(
  file: string,
  ownership: CodexOwnership,
  settings: AgentWindowSettings,
  options: IncrementalReaderOptions = {},
): SessionReader {
  return createReadingViewReader(file, codexRolloutFold, settings, (name) => ownership.decide(name), options);
}
