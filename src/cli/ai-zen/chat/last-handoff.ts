// The last handoff /status shows: from this chat's own events once one happens, and at start from
// the session file (or, right after a migration, its predecessor's) — the `handoff` lines they hold.
import type { SessionStore } from '../../../session/store.js';
import type { ExecutorName, HandoffChecks } from '../../../session/format.js';

export interface HandoffRecord {
  /** Project-relative path of the document. */
  readonly path: string;
  readonly executor: ExecutorName;
  readonly mode: 'handoff' | 'migrate';
  /** ISO-8601. */
  readonly at: string;
  /** F1–F4: what the document still fails; absent when it was not checked. */
  readonly checks?: HandoffChecks;
}

async function lastIn(store: Pick<SessionStore, 'read'>, id: string): Promise<{ record: HandoffRecord | null; previousId: string | null }> {
  const content = await store.read(id);
  let record: HandoffRecord | null = null;
  for (const line of content.lines) {
    if (line.type === 'handoff')
      record = { path: line.path, executor: line.executor, mode: line.mode, at: line.at, ...(line.checks ? { checks: line.checks } : {}) };
  }
  return { record, previousId: content.header.previousId };
}

/** Never throws: a session that cannot be read just has no known handoff. */
export async function findLastHandoff(store: Pick<SessionStore, 'read'>, sessionId: string): Promise<HandoffRecord | null> {
  try {
    const current = await lastIn(store, sessionId);
    if (current.record !== null || current.previousId === null) return current.record;
    return (await lastIn(store, current.previousId)).record;
  } catch {
    return null;
  }
}
