// Issue 21 §4: which handoff document another agent's session was started from — the successor
// command the daemon announced makes its first request name the document — and so which session
// it continues. ai-zen's own sessions say it in their header (previousId); Claude Code's and
// Codex's transcripts only say it in that first request, read once per transcript and kept.
import { previousDocumentPath } from '../../handoff/previous-document.js';
import { userRequests } from '../../handoff/transcript.js';
import { findSource, type SessionSource, type SessionState } from '../watching/session-source.js';

export interface ContinuedFrom {
  readonly path: string;
  /** The session the document was written for, when a handoff record names it. */
  readonly sessionId: string | null;
}

export interface ContinuedSessions {
  previousOf(state: SessionState): Promise<ContinuedFrom | null>;
}

export function createContinuedSessions(options: {
  readonly sources: readonly SessionSource[];
  /** The session a handoff document was written for (the committer's records). */
  readonly sessionOfDocument: (path: string) => string | null;
}): ContinuedSessions {
  /** Per transcript: the document its first request names (null: none), once it has a first request. */
  const known = new Map<string, string | null>();
  return {
    async previousOf(state) {
      const source = findSource(options.sources, state.file);
      if (!source?.handover) return null;
      let path = known.get(state.file);
      if (path === undefined) {
        const messages = await source.handover.readEvidence(state.file).catch(() => null);
        // No request yet: asked again later (the first request decides, and it never changes).
        if (!messages || userRequests(messages).length === 0) return null;
        path = previousDocumentPath(messages);
        known.set(state.file, path);
      }
      return path === null ? null : { path, sessionId: options.sessionOfDocument(path) };
    },
  };
}
