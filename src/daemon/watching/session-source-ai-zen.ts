// The ai-zen session source: `.ai-zen/sessions/<id>.jsonl` in the v1 format (SPEC "Session file").
import path from 'node:path';
import type { HeaderLine, SessionLine } from '../../session/format.js';
import { SESSION_ID_PATTERN } from '../../session/format.js';
import { parseSessionLine } from '../../session/parse-line.js';
import type { IncrementalReaderOptions } from './incremental-reader.js';
import { createLineFoldReader, type LineFold } from './line-fold-reader.js';
import { isOverflowed, type SessionSource, type SessionState } from './session-source.js';

const SUFFIX = '.jsonl';

export function createAiZenSessionSource(options: IncrementalReaderOptions = {}): SessionSource {
  return {
    id: 'ai-zen',
    kind: 'ai-zen',
    matches(file) {
      const name = path.basename(file);
      return (
        name.endsWith(SUFFIX) &&
        SESSION_ID_PATTERN.test(name.slice(0, -SUFFIX.length)) &&
        path.basename(path.dirname(file)) === 'sessions' &&
        path.basename(path.dirname(path.dirname(file))) === '.ai-zen'
      );
    },
    createReader: (file) => createLineFoldReader(file, aiZenLineFold, options),
  };
}

/** The state of an ai-zen session file with no lines read yet. */
export function emptyAiZenState(file: string): SessionState {
  return {
    kind: 'ai-zen',
    file,
    sessionId: path.basename(file, SUFFIX),
    model: null,
    maxContextTokens: null,
    latestUsage: null,
    closed: false,
    successorId: null,
    overflowed: false,
    messageCount: 0,
    lastHandoff: null,
    skippedCount: 0,
    declined: null,
    details: { header: null },
  };
}

/** Folds one parsed line into the state (pure). The header counts only as the first line. */
export function foldAiZenLine(state: SessionState, line: SessionLine, lineNumber: number): SessionState | string {
  switch (line.type) {
    case 'session': {
      if (lineNumber !== 1) return 'a header line after the first line';
      // T2: the identity is the file name. A header naming another session (a copy, a backup, or a
      // file planted to get another session migrated) makes the whole file none of ours to act on.
      if (line.id !== state.sessionId) {
        return { ...state, refusedBecause: `its header names session ${line.id}, not ${state.sessionId} (the file name)` };
      }
      return withOverflow({
        ...state,
        model: line.model,
        maxContextTokens: line.maxContextTokens,
        details: { ...state.details, header: line satisfies HeaderLine },
      });
    }
    case 'message':
      return { ...state, messageCount: state.messageCount + 1 };
    case 'usage': {
      const next = withOverflow({ ...state, latestUsage: line.usage });
      // R19: a skip holds for the crossing it declined; at or below the window it is spent.
      return next.overflowed ? next : { ...next, declined: null };
    }
    case 'skip':
      // Only a skip of a crossing that is on counts; one read while under the window declines nothing.
      return state.overflowed ? { ...state, declined: { at: line.at, promptTokens: line.promptTokens } } : state;
    case 'handoff':
      return {
        ...state,
        lastHandoff: {
          path: line.path,
          executor: line.executor,
          mode: line.mode,
          at: line.at,
          cost: line.cost,
          ...(line.sha256 !== undefined ? { sha256: line.sha256 } : {}),
          ...(line.redactions !== undefined ? { redactions: line.redactions } : {}),
          ...(line.checks ? { checks: line.checks } : {}),
        },
      };
    case 'migrated':
      return withOverflow({ ...state, closed: true, successorId: line.newId });
    case 'reopened': {
      // Open again; an undo of a migration is no request to migrate it straight back.
      const next = withOverflow({ ...state, closed: false, successorId: null });
      return next.overflowed ? { ...next, declined: { at: line.at, promptTokens: next.latestUsage?.prompt_tokens ?? 0 } } : next;
    }
  }
}

function withOverflow(state: SessionState): SessionState {
  return { ...state, overflowed: isOverflowed(state) };
}

/** The ai-zen fold for the shared line reader: a v1 line parsed with the session format's schema, then folded. */
export const aiZenLineFold: LineFold = {
  empty: emptyAiZenState,
  fold(state, raw, note) {
    const parsed = parseSessionLine(raw.text);
    if (!parsed.ok) return parsed.reason;
    const next = foldAiZenLine(state, parsed.line, raw.lineNumber);
    // Said once in the log (the line itself is kept); status says what follows.
    if (typeof next !== 'string' && raw.lineNumber === 1 && parsed.line.type !== 'session')
      note('no session header line: the window is unknown, so the daemon cannot judge or migrate an overflow');
    return next;
  },
};
