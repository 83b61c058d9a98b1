// An agent's line fold (kit/agent-reader.ts) driven over lines as its reader drives it, without a
// file: the state after them, what each line showed (a reading, a compaction) and why lines were skipped.
import type { AgentWindowSettings } from '../../src/config/agent-models.js';
import { type AgentLineFold, emptyLineFoldState, measureBy } from '../../src/daemon/sources/kit/agent-reader.js';
import type { SessionState } from '../../src/daemon/watching/session-source.js';

export const WINDOW_SETTINGS: AgentWindowSettings = { handoffAt: 70, warnAt: 60, handoffAtTokens: null, contextWindow: null, models: {} };

export function foldLines(
  fold: AgentLineFold,
  file: string,
  lines: readonly string[],
  settings: AgentWindowSettings = WINDOW_SETTINGS,
): { state: SessionState; news: string[]; skips: string[] } {
  const measure = measureBy(fold.agent, settings);
  let state = emptyLineFoldState(fold, file, measure);
  const news: string[] = [];
  const skips: string[] = [];
  for (const text of lines) {
    const next = fold.fold(state, text, measure);
    if (typeof next === 'string') {
      skips.push(next);
      continue;
    }
    if ((next.compactions ?? 0) > (state.compactions ?? 0)) news.push('compaction');
    else if (next.latestUsage !== state.latestUsage) news.push('reading');
    state = next;
  }
  return { state, news, skips };
}
