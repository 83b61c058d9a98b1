// The lineage of a project's sessions (S6): which session went on in which, through which handoff
// document, when and by which executor. Read from the session files alone (their header's
// previousId, their handoff and migrated lines); a successor counts only when it names this
// session as its predecessor, as `--continue` checks.
import type { ExecutorName, HeaderLine, SessionLine } from './format.js';

export interface LineageHandoff {
  readonly at: string;
  readonly path: string;
  readonly executor: ExecutorName;
  readonly mode: 'handoff' | 'migrate';
  readonly goal: string | null;
}

export interface LineageSession {
  readonly id: string;
  readonly createdAt: string;
  readonly model: string;
  readonly previousId: string | null;
  /** Chat messages recorded in it. */
  readonly messages: number;
  readonly handoffs: readonly LineageHandoff[];
  /** The session it migrated to, with the document and the executor that wrote it; null while it is open. */
  readonly migratedTo: { readonly id: string; readonly at: string; readonly path: string; readonly executor: ExecutorName | null } | null;
  /** The session `ai-zen --continue` opens. */
  readonly latest: boolean;
}

export interface LineageChain {
  readonly sessions: readonly LineageSession[];
}

export interface SessionRecord {
  readonly header: HeaderLine;
  readonly lines: readonly SessionLine[];
}

function describe(record: SessionRecord, latestId: string | null): LineageSession {
  const handoffs: LineageHandoff[] = [];
  let migrated: { id: string; at: string; path: string } | null = null;
  let messages = 0;
  for (const line of record.lines) {
    if (line.type === 'message') messages += 1;
    else if (line.type === 'handoff')
      handoffs.push({
        at: line.at,
        path: line.path,
        executor: line.executor,
        mode: line.mode,
        goal: typeof line.goal === 'string' ? line.goal : null,
      });
    else if (line.type === 'migrated') migrated = { id: line.newId, at: line.at, path: line.path };
    // An undone migration; its successor stands alone, a chain of its own.
    else if (line.type === 'reopened') migrated = null;
  }
  const executor = migrated ? (handoffs.findLast((handoff) => handoff.path === migrated.path)?.executor ?? null) : null;
  return {
    id: record.header.id,
    createdAt: record.header.createdAt,
    model: record.header.model,
    previousId: record.header.previousId,
    messages,
    handoffs,
    migratedTo: migrated ? { ...migrated, executor } : null,
    latest: record.header.id === latestId,
  };
}

/** Chains, oldest first by their first session; every session appears in exactly one chain. */
export function buildLineage(records: readonly SessionRecord[], latestId: string | null): LineageChain[] {
  const byId = new Map(records.map((record) => [record.header.id, describe(record, latestId)]));
  const successorOf = (session: LineageSession): LineageSession | null => {
    const next = session.migratedTo ? byId.get(session.migratedTo.id) : undefined;
    return next && next.previousId === session.id ? next : null;
  };
  const hasPredecessor = new Set<string>();
  for (const session of byId.values()) {
    const next = successorOf(session);
    if (next) hasPredecessor.add(next.id);
  }
  const placed = new Set<string>();
  const chains: LineageChain[] = [];
  const starts = [...byId.values()].filter((session) => !hasPredecessor.has(session.id));
  // A loop of sessions (damaged files) has no start; its sessions still get listed, once.
  const rest = () => [...byId.values()].filter((session) => !placed.has(session.id));
  for (const start of [...starts, ...rest()]) {
    if (placed.has(start.id)) continue;
    const sessions: LineageSession[] = [];
    for (let session: LineageSession | null = start; session && !placed.has(session.id); session = successorOf(session)) {
      placed.add(session.id);
      sessions.push(session);
    }
    chains.push({ sessions });
  }
  return chains.sort((a, b) => a.sessions[0]!.createdAt.localeCompare(b.sessions[0]!.createdAt));
}
