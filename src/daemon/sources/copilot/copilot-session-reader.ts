// One Copilot CLI transcript (`session-state/<id>/events.jsonl`) as a reading view
// (kit/reading-view.ts). Its folder's owner is decided before the first read (CopilotOwnership):
// another repo's transcript is never read. The folder's name is the session's id.
import path from 'node:path';
import type { AgentWindowSettings } from '../../../config/agent-models.js';
import type { IncrementalReaderOptions } from '../../watching/incremental-reader.js';
import type { SessionReader, SessionState } from '../../watching/session-source.js';
import { createReadingViewReader, type ReadingViewFold, viewOf } from '../kit/reading-view.js';
import { type CopilotView, emptyCopilotView, foldCopilotLine } from './copilot-events.js';
import { copilotSessionIdOf } from './copilot-paths.js';
import type { CopilotOwnership } from './copilot-session-folders.js';

export const copilotEventsFold: ReadingViewFold<CopilotView> = {
  agent: 'copilot',
  empty: emptyCopilotView,
  fold: foldCopilotLine,
  sessionId: (file) => copilotSessionIdOf(file),
};

/** The view a Copilot session's state carries in `details.copilot`. */
export function copilotViewOf(state: SessionState): CopilotView | null {
  return viewOf<CopilotView>(state, 'copilot');
}

export function createCopilotSessionReader(
  file: string,
  ownership: CopilotOwnership,
  settings: AgentWindowSettings,
  options: IncrementalReaderOptions = {},
): SessionReader {
  return createReadingViewReader(file, copilotEventsFold, settings, () => ownership.decide(path.dirname(file)), options);
}
