// Issues 19 §5 and 21 §4: which handoff document another agent's session was started from — the
// successor command the daemon announced makes its first request name the document — and so which
// session it continues, and, read the other way, which later session continued a session of another
// agent (that one is then handed off). ai-zen's own sessions say both in their files (previousId, a
// `migrated` line); Claude Code's and Codex's transcripts only say it in the successor's first
// request, read once per transcript and kept. The one owner of that reading: the status's
// "handed off → successor" and a successor's `previous` come from the same answer.
import { previousDocumentPath } from '../../handoff/previous-document.js';
import { userRequests } from '../../handoff/transcript.js';
import { findSource, type SessionSource, type SessionState } from '../watching/session-source.js';

/** A session started this long before a document was written cannot have been started from it. */
const CLOCK_SLACK_MS = 60_000;

export interface ContinuedFrom {
  readonly path: string;
  /** The session the document was written for, when a handoff record names it. */
  readonly sessionId: string | null;
}

export interface ForeignDocument {
  readonly path: string;
  readonly sessionId: string;
  /** When it was written (ISO). */
  readonly at: string;
}

export interface ContinuedSessions {
  previousOf(state: SessionState): Promise<ContinuedFrom | null>;
  /** predecessor session id → the id of the session that started from its document. */
  successors(states: readonly SessionState[], documents: readonly ForeignDocument[]): Promise<Map<string, string>>;
}

export function createContinuedSessions(options: {
  readonly sources: readonly SessionSource[];
  /** The session a handoff document was written for (the committer's records). */
  readonly sessionOfDocument: (path: string) => string | null;
}): ContinuedSessions {
  /** Per transcript: the document its first request names (null: none), once it has a first request. */
  const known = new Map<string, string | null>();

  async function documentOf(state: SessionState): Promise<string | null> {
    const source = findSource(options.sources, state.file);
    if (!source?.handover) return null;
    const path = known.get(state.file);
    if (path !== undefined) return path;
    const messages = await source.handover.readEvidence(state.file).catch(() => null);
    // No request yet: asked again later (the first request decides, and it never changes).
    if (!messages || userRequests(messages).length === 0) return null;
    const named = previousDocumentPath(messages);
    known.set(state.file, named);
    return named;
  }

  return {
    async previousOf(state) {
      const path = await documentOf(state);
      return path === null ? null : { path, sessionId: options.sessionOfDocument(path) };
    },

    async successors(states, documents) {
      const links = new Map<string, string>();
      if (documents.length === 0) return links;
      const byPath = new Map(documents.map((doc) => [doc.path, doc]));
      const earliest = Math.min(...documents.map((doc) => Date.parse(doc.at)).filter(Number.isFinite));
      const started = (state: SessionState) => (state.startedAt ? Date.parse(state.startedAt) : Number.NaN);
      // Only sessions that could have started from one of the documents are read at all.
      const candidates = states
        .filter((state) => state.kind !== 'ai-zen' && !state.foreign && !(started(state) < earliest - CLOCK_SLACK_MS))
        .sort((a, b) => (started(a) || 0) - (started(b) || 0));
      for (const candidate of candidates) {
        const path = await documentOf(candidate).catch(() => null);
        const doc = path === null ? undefined : byPath.get(path);
        if (!doc || doc.sessionId === candidate.sessionId || links.has(doc.sessionId)) continue;
        if (started(candidate) < Date.parse(doc.at) - CLOCK_SLACK_MS) continue;
        links.set(doc.sessionId, candidate.sessionId);
      }
      return links;
    },
  };
}
