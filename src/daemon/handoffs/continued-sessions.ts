// Which handoff document another agent's session was started from — the successor command the
// daemon announced makes its first request name the document — and so which session it continues,
// and, read the other way, which later session continued a session of another agent (that one is
// then handed off). ai-zen's own sessions say both in their files (previousId, a `migrated` line);
// Claude Code's and Codex's transcripts only say it in the successor's first request, read once per
// transcript and kept: up to that request only, and a transcript that has none yet is read again
// only once it has grown (`status`, `sessions` and `top` ask on every request). The one owner of
// that reading: the status's "handed off → successor" and a successor's `previous` come from the same answer.
import { promises as fs } from 'node:fs';
import { readRegularHead } from '../../fs/open-regular-file.js';
import { previousDocumentPath } from '../../handoff/previous-document.js';
import { parseSessionText } from '../../session/store.js';
import { userRequests } from '../../handoff/transcript.js';
import { findSource, type SessionSource, type SessionState } from '../watching/session-source.js';

/** What an ai-zen breakpoint message holds: a handoff document's project-relative path, nothing else (R4). */
const BREAKPOINT_PATH = /^\.ai-zen\/handoffs\/[A-Za-z0-9._-]+\.md$/;
/** The definitions and the breakpoint come first in an ai-zen session file: its head is enough. */
const AI_ZEN_HEAD_BYTES = 256 * 1024;

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
  /** A session started from a document in the agent's own terminal (`/clear` after a handoff): its first request need not name it. */
  link(transcript: string, documentPath: string): void;
  /** predecessor session id → the id of the session that started from its document. */
  successors(states: readonly SessionState[], documents: readonly ForeignDocument[]): Promise<Map<string, string>>;
}

/** A file's size; null: it cannot be told (gone). */
const fileSize = (file: string): Promise<number | null> =>
  fs.stat(file).then(
    (stats) => stats.size,
    () => null,
  );

export function createContinuedSessions(options: {
  readonly sources: readonly SessionSource[];
  /** The session a handoff document was written for (the committer's records). */
  readonly sessionOfDocument: (path: string) => string | null;
  /** A transcript's size now (the default stats it): a transcript read with no answer is read again only once it grew. */
  readonly sizeOf?: (file: string) => Promise<number | null>;
}): ContinuedSessions {
  const sizeOf = options.sizeOf ?? fileSize;
  /** Per transcript: the document its first request names (null: none), once it has a first request. */
  const known = new Map<string, string | null>();
  /** Per transcript read with no answer yet (no request, unreadable): its size then. */
  const unanswered = new Map<string, number>();
  /** Readings under way: a second request for the same transcript waits on the first's. */
  const reading = new Map<string, Promise<string | null>>();

  /**
   * The answer for `file`, read by `read` (which says undefined for "no answer yet") only when it is new or has grown.
   * `rows`: how much a session that is no file holds (opencode's rows: its message count), read in its file size's place.
   */
  function once(file: string, read: () => Promise<string | null | undefined>, rows?: number): Promise<string | null> {
    const path = known.get(file);
    if (path !== undefined) return Promise.resolve(path);
    const running = reading.get(file);
    if (running) return running;
    const promise = (async () => {
      const size = (await sizeOf(file)) ?? rows ?? null;
      if (size === null) return null;
      const before = unanswered.get(file);
      if (before !== undefined && size <= before) return null;
      const answer = await read().catch(() => undefined);
      if (answer === undefined) {
        unanswered.set(file, size);
        return null;
      }
      known.set(file, answer);
      unanswered.delete(file);
      return answer;
    })().finally(() => reading.delete(file));
    reading.set(file, promise);
    return promise;
  }

  function documentOf(state: SessionState): Promise<string | null> {
    if (state.kind === 'ai-zen') return once(state.file, () => aiZenBreakpoint(state));
    const source = findSource(options.sources, state.file);
    if (!source?.handoff) return Promise.resolve(null);
    const handoff = source.handoff;
    return once(
      state.file,
      async () => {
        // Only up to the first request: the first request decides, and it never changes.
        const { messages } = await handoff.readEvidence(state.file, { firstRequestOnly: true });
        return userRequests(messages).length === 0 ? undefined : previousDocumentPath(messages);
      },
      state.messageCount,
    );
  }

  /**
   * An ai-zen session started from another agent's document (`ai-zen-daemon continue
   * --in ai-zen`) holds, as a migration's successor does, one breakpoint message: the document's path.
   */
  async function aiZenBreakpoint(state: SessionState): Promise<string | null | undefined> {
    const head = await readRegularHead(state.file, AI_ZEN_HEAD_BYTES);
    const first = parseSessionText(head.toString('utf8'))
      .lines.map((entry) => entry.line)
      .find((line) => line.type === 'message' && line.definition !== true);
    if (first === undefined) return undefined;
    const content = first.type === 'message' && first.message.role === 'user' ? first.message.content : null;
    return typeof content === 'string' && BREAKPOINT_PATH.test(content) ? content : null;
  }

  return {
    link(transcript, documentPath) {
      known.set(transcript, documentPath);
    },

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
        .filter((state) => !state.otherRepo && !(started(state) < earliest - CLOCK_SLACK_MS))
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
