// Auto-commit (D3): every new handoff document, whoever wrote it, is committed ALONE by
// commitHandoff (message `handoff: <short id> (<executor>)`) — once handoff-doc-check.ts found it to be
// a document ai-zen sealed (T1); the bytes it checked are the bytes committed. When it cannot or must not commit, the
// document stays, the record says why, and the commit is tried again when the obstacle may be
// gone: on a change of the git state (the daemon calls retry()) and on a backoff timer.
// Commits run one at a time: two at once would race for HEAD. With `ref` (daemon.commit
// "ref") they go to that side ref instead of the branch checked out (commit-to-ref.ts).
import type { Logger } from 'pino';
import type { EventBus, ForkCost, HandoffTrigger } from '../../events.js';
import type { Env } from '../../paths.js';
import type { HandoffChecks } from '../../session/format.js';
import { commitHandoff as defaultCommitHandoff, type CommitHandoffOptions, type CommitHandoffResult } from './commit-handoff.js';
import { commitToRef } from './commit-to-ref.js';
import { checkHandoffDocument, pathProblem, type DocumentCheck, type DocumentClaim } from './handoff-doc-check.js';
import { committedHandoffs, committedOnRef } from './handoff-history.js';
import { shortId } from '../../short-id.js';

export interface HandoffSeen {
  /** Project-relative path of the document. */
  readonly path: string;
  /** The session whose file holds the `handoff` line: its file name (T2). */
  readonly sessionId: string;
  readonly executor: string;
  readonly mode: string;
  readonly at: string;
  /** Another agent's session (X3): which agent, and the command that starts its successor. */
  readonly agent?: string;
  readonly successorCommand?: string;
  /** The sealed document's sha256, as the line records it (T1); none: not sealed by ai-zen. */
  readonly sha256?: string | null;
  /** Secrets redacted from it before it was sealed (T5). */
  readonly redactions?: number | null;
  /** F1–F4: what the document still fails, when its writer checked it. */
  readonly checks?: HandoffChecks;
  /** R11: the executors that failed before the one that wrote it, and why. */
  readonly downgrades?: readonly { readonly from: string; readonly reason: string }[];
  /** What set it off (threshold, idle, precompact, hand); absent: the writer did not say. */
  readonly trigger?: HandoffTrigger;
  /** Written by a fork of the session: what its own turn cost. */
  readonly forkCost?: ForkCost;
}

export type CommitStatus =
  | { readonly state: 'pending' }
  /** `ref`: the side ref it was committed to (daemon.commit "ref"); absent: the branch checked out. */
  | { readonly state: 'committed'; readonly commit: string; readonly ref?: string }
  | { readonly state: 'deferred'; readonly reason: string; readonly retryable: boolean }
  | { readonly state: 'off'; readonly reason: string };

export interface HandoffRecord extends HandoffSeen {
  readonly status: CommitStatus;
  readonly attempts: number;
}

export interface HandoffCommitterOptions {
  readonly root: string;
  /** config.daemon.autoCommit: false is daemon.commit "off". */
  readonly enabled: boolean;
  /** daemon.commit "ref": the side ref documents are committed to, instead of the branch checked out. */
  readonly ref?: string;
  readonly events: EventBus;
  readonly logger: Logger;
  readonly env?: Env;
  readonly commit?: (options: CommitHandoffOptions) => Promise<CommitHandoffResult>;
  /** T1: is this a document ai-zen sealed, and what are its bytes. */
  readonly checkDocument?: (root: string, claim: DocumentClaim) => Promise<DocumentCheck>;
  /** Which of these docs git already holds unchanged, and in which commit (for docs found at startup). */
  readonly lookupCommitted?: (paths: readonly string[]) => Promise<Map<string, string>>;
  /** First retry after this, doubling up to maxRetryMs. */
  readonly retryMs?: number;
  readonly maxRetryMs?: number;
}

export interface HandoffCommitter {
  /** A handoff line was seen. `announce: false` for those found at startup: no events for them. */
  add(handoff: HandoffSeen, options?: { announce?: boolean }): void;
  /**
   * The document at this project-relative path is already known (committed or not). False for one
   * that failed the T1 check: a later line naming the same path may replace that record.
   */
  has(path: string): boolean;
  /** The git state changed: try every uncommitted document again. */
  retry(): void;
  list(): HandoffRecord[];
  /**
   * Resolves once the documents found at startup are looked up in git: until then list() leaves
   * them out (as `pending` they would call a committed document uncommitted).
   */
  settled(): Promise<void>;
  /**
   * The first outcome of the document's commit (committed, deferred, off), waiting at most
   * `timeoutMs` while it is pending; null for a path the committer does not know.
   */
  outcome(path: string, timeoutMs: number): Promise<CommitStatus | null>;
  /** Stops the timers and waits for the commit under way. */
  close(): Promise<void>;
}

export const AUTO_COMMIT_OFF = 'auto-commit is off (daemon.commit or daemon.autoCommit in the config)';

export function commitMessage(handoff: Pick<HandoffSeen, 'sessionId' | 'executor'>): string {
  return `handoff: ${shortId(handoff.sessionId)} (${handoff.executor})`;
}

interface Entry {
  record: HandoffRecord;
  announce: boolean;
  timer: NodeJS.Timeout | null;
  queued: boolean;
  /** The document failed the T1 check: a later line for the same path may replace this record. */
  untrusted: boolean;
  /** Found at startup and not yet looked up in git: unlisted, as `pending` would call a committed document uncommitted. */
  unknown: boolean;
}

export function createHandoffCommitter(options: HandoffCommitterOptions): HandoffCommitter {
  const { events, logger } = options;
  const { ref } = options;
  const commit =
    options.commit ??
    (ref === undefined ? defaultCommitHandoff : (commitOptions: CommitHandoffOptions) => commitToRef({ ...commitOptions, ref }));
  const checkDocument = options.checkDocument ?? checkHandoffDocument;
  const retryMs = options.retryMs ?? 1000;
  const maxRetryMs = options.maxRetryMs ?? 60_000;
  const lookupCommitted =
    options.lookupCommitted ??
    ((paths: readonly string[]) =>
      ref === undefined ? committedHandoffs(options.root, paths, options.env) : committedOnRef(options.root, ref, paths, options.env));
  /** Who waits for a document's first outcome (the notification that folds the commit in). */
  const waiters = new Map<string, ((status: CommitStatus) => void)[]>();
  const settle = (path: string, status: CommitStatus) => {
    const waiting = waiters.get(path);
    waiters.delete(path);
    for (const resolve of waiting ?? []) resolve(status);
  };
  const entries = new Map<string, Entry>();
  const queue: Entry[] = [];
  /** Docs found at startup wait here for one batched lookup; only those git does not hold are committed. */
  let history: Entry[] = [];
  let historyLookup: Promise<void> | null = null;
  let running: Promise<void> | null = null;
  let closed = false;
  /** Aborted at close: what a commit still runs (a hook) is stopped with the daemon. */
  const stopping = new AbortController();

  function enqueue(entry: Entry): void {
    if (closed || entry.queued || entry.record.status.state === 'committed' || entry.record.status.state === 'off') return;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = null;
    entry.queued = true;
    queue.push(entry);
    running ??= drain().finally(() => (running = null));
  }

  /** One lookup at a time, from the next turn of the loop; docs found meanwhile get the next one. */
  function scheduleHistory(): void {
    historyLookup ??= new Promise<void>((resolve) => setImmediate(resolve)).then(settleHistory).finally(() => {
      historyLookup = null;
      if (history.length > 0 && !closed) scheduleHistory();
    });
  }

  async function settleHistory(): Promise<void> {
    const batch = history;
    history = [];
    const held = await lookupCommitted(batch.map((entry) => entry.record.path)).catch((error: unknown) => {
      logger.warn({ err: error }, 'could not look up which handoff documents are committed; checking each');
      return new Map<string, string>();
    });
    for (const entry of batch) {
      entry.unknown = false;
      const commit = held.get(entry.record.path);
      if (commit) entry.record = { ...entry.record, status: { state: 'committed', commit, ...(ref ? { ref } : {}) } };
      else enqueue(entry);
    }
  }

  async function drain(): Promise<void> {
    for (let entry = queue.shift(); entry && !closed; entry = queue.shift()) {
      entry.queued = false;
      await attempt(entry);
    }
  }

  async function attempt(entry: Entry): Promise<void> {
    const { record } = entry;
    let result: CommitHandoffResult;
    try {
      const checked = await checkDocument(options.root, record);
      entry.untrusted = !checked.ok;
      result = checked.ok
        ? await commit({
            root: options.root,
            docPath: record.path,
            message: commitMessage(record),
            content: checked.content,
            onlyNew: true,
            signal: stopping.signal,
            ...(options.env ? { env: options.env } : {}),
          })
        : { committed: false, reason: checked.reason, retryable: false };
    } catch (error) {
      result = {
        committed: false,
        reason: `committing failed: ${error instanceof Error ? error.message : String(error)}`,
        retryable: true,
      };
    }
    const attempts = record.attempts + 1;
    const previous = record.status;
    if (result.committed) {
      entry.record = { ...record, attempts, status: { state: 'committed', commit: result.commit, ...(ref ? { ref } : {}) } };
      logger.info({ path: record.path, commit: result.commit, attempts, ...(ref ? { ref } : {}) }, 'handoff document committed');
      settle(record.path, entry.record.status);
      if (entry.announce) events.emit('handoff.committed', { path: record.path, commit: result.commit });
      return;
    }
    entry.record = { ...record, attempts, status: { state: 'deferred', reason: result.reason, retryable: result.retryable } };
    settle(record.path, entry.record.status);
    const sameReason = previous.state === 'deferred' && previous.reason === result.reason;
    if (!sameReason) {
      logger.warn({ path: record.path, reason: result.reason, retryable: result.retryable }, 'handoff document not committed yet');
      if (entry.announce) events.emit('handoff.commit-deferred', { path: record.path, reason: result.reason });
    }
    // A refusal that no retry can cure waits for a change of the git state instead of a timer.
    if (result.retryable && !closed) {
      const delay = Math.min(maxRetryMs, retryMs * 2 ** Math.min(attempts - 1, 20));
      entry.timer = setTimeout(() => enqueue(entry), delay);
      entry.timer.unref();
    }
  }

  return {
    add(handoff, addOptions = {}) {
      const known = entries.get(handoff.path);
      // A planted line must not keep ai-zen's own line for the same path from being committed.
      const replaces =
        known?.untrusted === true && (known.record.sessionId !== handoff.sessionId || known.record.sha256 !== handoff.sha256);
      if (closed || (known && !replaces)) return;
      if (known?.timer) clearTimeout(known.timer);
      const status: CommitStatus = options.enabled ? { state: 'pending' } : { state: 'off', reason: AUTO_COMMIT_OFF };
      const entry: Entry = {
        record: { ...handoff, status, attempts: 0 },
        announce: addOptions.announce ?? true,
        timer: null,
        queued: false,
        untrusted: false,
        unknown: false,
      };
      entries.set(handoff.path, entry);
      // A path that cannot be a document of this session is refused at once, never looked up in git.
      if (entry.announce || status.state !== 'pending' || pathProblem(handoff) !== null) return enqueue(entry);
      entry.unknown = true;
      history.push(entry);
      scheduleHistory();
    },
    has(path) {
      const entry = entries.get(path);
      return entry !== undefined && !entry.untrusted;
    },
    retry() {
      for (const entry of entries.values()) if (entry.record.status.state === 'deferred') enqueue(entry);
    },
    outcome(path, timeoutMs) {
      const entry = entries.get(path);
      if (!entry) return Promise.resolve(null);
      if (entry.record.status.state !== 'pending' || closed) return Promise.resolve(entry.record.status);
      return new Promise<CommitStatus>((resolve) => {
        const timer = setTimeout(() => resolve(entries.get(path)?.record.status ?? { state: 'pending' }), timeoutMs);
        timer.unref();
        const list = waiters.get(path) ?? [];
        list.push((status) => {
          clearTimeout(timer);
          resolve(status);
        });
        waiters.set(path, list);
      });
    },
    async settled() {
      while (historyLookup) await historyLookup;
    },
    list() {
      return [...entries.values()]
        .filter((entry) => !entry.unknown)
        .map((entry) => entry.record)
        .sort((a, b) => a.at.localeCompare(b.at) || a.path.localeCompare(b.path));
    },
    async close() {
      closed = true;
      // A hook that hangs must not outlive the daemon: the commit is refused and retried at the next start.
      stopping.abort();
      while (historyLookup) await historyLookup;
      queue.length = 0;
      for (const entry of entries.values()) if (entry.timer) clearTimeout(entry.timer);
      await running;
      for (const path of [...waiters.keys()]) settle(path, entries.get(path)?.record.status ?? { state: 'pending' });
    },
  };
}
