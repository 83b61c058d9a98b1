// Which session continued another agent's session (issue 19 §5). ai-zen's own sessions say it
// themselves (a `migrated` line names the successor); a Claude Code or Codex session does not: its
// successor is a fresh session started by the successor command, whose first request names the
// handoff document. So a session of another agent is handed off once a later session's opening
// bytes name the document written for it — read once per transcript, only the head, only while
// there is a document of another agent to look for.
import { promises as fs } from 'node:fs';
import type { SessionState } from '../watching/session-source.js';

/** How much of a transcript's start is searched: Codex's first line (its instructions) can be tens of KB. */
const HEAD_BYTES = 256 * 1024;
const DOC_PATH = /\.ai-zen\/handoffs\/\d{8}-\d{6}-[A-Za-z0-9_-]{8}(?:-[1-9]\d{0,3})?\.md/g;
/** A session started this long before a document was written cannot have been started from it. */
const CLOCK_SLACK_MS = 60_000;

export interface ForeignDocument {
  readonly path: string;
  readonly sessionId: string;
  /** When it was written (ISO). */
  readonly at: string;
}

export interface SuccessorLinks {
  /** predecessor session id → the id of the session that started from its document. */
  find(states: readonly SessionState[], documents: readonly ForeignDocument[]): Promise<Map<string, string>>;
}

export function createSuccessorLinks(): SuccessorLinks {
  /** The document paths each transcript's head names; kept once the head is complete (it never changes then). */
  const heads = new Map<string, { readonly complete: boolean; readonly docs: readonly string[] }>();

  async function docsNamedIn(file: string): Promise<readonly string[]> {
    const known = heads.get(file);
    if (known?.complete) return known.docs;
    const handle = await fs.open(file, 'r').catch(() => null);
    if (!handle) return [];
    try {
      const buffer = Buffer.alloc(HEAD_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
      const text = buffer.subarray(0, bytesRead).toString('utf8');
      const docs = [...new Set(text.match(DOC_PATH) ?? [])];
      // A head that is still being written may name its document in a moment: read it again then.
      heads.set(file, { complete: bytesRead === HEAD_BYTES, docs });
      return docs;
    } finally {
      await handle.close();
    }
  }

  return {
    async find(states, documents) {
      const links = new Map<string, string>();
      if (documents.length === 0) return links;
      const byPath = new Map(documents.map((doc) => [doc.path, doc]));
      const earliest = Math.min(...documents.map((doc) => Date.parse(doc.at)).filter(Number.isFinite));
      const started = (state: SessionState) => (state.startedAt ? Date.parse(state.startedAt) : Number.NaN);
      const candidates = states
        .filter((state) => state.kind !== 'ai-zen' && !state.foreign && !(started(state) < earliest - CLOCK_SLACK_MS))
        .sort((a, b) => (started(a) || 0) - (started(b) || 0));
      for (const candidate of candidates) {
        for (const path of await docsNamedIn(candidate.file)) {
          const doc = byPath.get(path);
          if (!doc || doc.sessionId === candidate.sessionId || links.has(doc.sessionId)) continue;
          if (started(candidate) < Date.parse(doc.at) - CLOCK_SLACK_MS) continue;
          links.set(doc.sessionId, candidate.sessionId);
        }
      }
      return links;
    },
  };
}
