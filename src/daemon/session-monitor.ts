// Turns what the watcher reads into what the daemon does (D1, D3, issue 4 §3):
// - a usage line that crosses the window → `session.overflowed`, once per crossing; then the
//   session's live owner hands it over, or — no live owner — the daemon migrates it itself;
// - a `handoff` line (whoever wrote it) → the document goes to the committer, `handoff.written`;
// - a `migrated` line → `session.migrated`; the session is closed and needs no more work.
// Lines read at startup are history: they feed the committer and the state, not the news.
import path from 'node:path';
import { SessionOwnedError } from '../errors.js';
import type { EventBus } from '../events.js';
import type { HandoffMode } from '../handoff/migration-service.js';
import { ExecutorName } from '../session/format.js';
import type { DaemonMigrator } from './daemon-migrator.js';
import type { HandoffCommitter } from './handoff-committer.js';
import type { HandoffSeenInSession, SessionState, SessionUpdate } from './session-source.js';

export type Owner = 'live' | 'none' | 'unknown';

export interface MonitorLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface SessionMonitorOptions {
  readonly root: string;
  readonly events: EventBus;
  readonly committer: HandoffCommitter;
  readonly migrator: Pick<DaemonMigrator, 'run'>;
  readonly logger: MonitorLogger;
  /** Whether a live process holds the session's lock. */
  readonly isOwned: (file: string) => Promise<boolean>;
}

/** What the daemon did or leaves to others for one session, for status. */
export interface SessionAction {
  readonly owner: Owner;
  /** e.g. 'left to its owner', 'migrating', 'migrated to 1a2b3c4d', 'failed: …'. */
  readonly action: string | null;
}

interface Crossing {
  owner: Owner;
  attempted: boolean;
  action: string | null;
}

export class SessionMonitor {
  /** The current overflow crossing of each overflowed session file. */
  private readonly crossings = new Map<string, Crossing>();
  private readonly owners = new Map<string, Promise<Owner>>();

  constructor(private readonly options: SessionMonitorOptions) {}

  handle(update: SessionUpdate, info: { readonly initial: boolean }): void {
    const { state, previous } = update;
    if (update.missing) {
      this.crossings.delete(state.file);
      return;
    }
    for (const handoff of update.handoffs) this.noticeHandoff(state, handoff, info.initial);
    if (state.closed && !previous.closed && !info.initial && state.successorId) {
      this.options.events.emit('session.migrated', { oldId: state.sessionId, newId: state.successorId, path: state.lastHandoff?.path ?? '' });
    }
    if (!state.overflowed) {
      // Dropped below the window or closed: the next crossing is news again.
      this.crossings.delete(state.file);
      return;
    }
    if (update.overflowStarted || !this.crossings.has(state.file)) void this.overflowStarted(state);
  }

  /** Called after each reconcile pass: an overflowed session whose owner went away is now the daemon's. */
  /** `stateOf` looks one session up: a pass costs nothing per idle session. */
  recheckOwners(stateOf: (file: string) => SessionState | null): void {
    for (const [file, crossing] of this.crossings) {
      const state = stateOf(file);
      if (!state || crossing.attempted || crossing.owner !== 'live' || !state.overflowed) continue;
      void this.options.isOwned(state.file).then((owned) => {
        if (owned || crossing.attempted || this.crossings.get(state.file) !== crossing) return;
        crossing.owner = 'none';
        this.options.logger.info({ sessionId: state.sessionId }, 'the owner of an overflowed session is gone; the daemon hands it over');
        this.migrate(state, crossing);
      });
    }
  }

  /** The owner seen when the session last overflowed (resolves once the lock was asked). */
  ownerOf(sessionId: string): Promise<Owner> {
    return this.owners.get(sessionId) ?? Promise.resolve('unknown');
  }

  actionFor(file: string): SessionAction | null {
    const crossing = this.crossings.get(file);
    return crossing ? { owner: crossing.owner, action: crossing.action } : null;
  }

  private noticeHandoff(state: SessionState, handoff: HandoffSeenInSession, initial: boolean): void {
    // A file read again from the start (truncated, replaced) repeats handoffs already known: no news.
    if (this.options.committer.has(handoff.path)) return;
    this.options.committer.add({ path: handoff.path, sessionId: state.sessionId, executor: handoff.executor, mode: handoff.mode, at: handoff.at }, { announce: !initial });
    if (initial) return;
    const executor = ExecutorName.safeParse(handoff.executor);
    const mode = handoff.mode === 'handoff' || handoff.mode === 'migrate' ? (handoff.mode as HandoffMode) : null;
    if (!executor.success || mode === null) return;
    this.options.events.emit('handoff.written', {
      sessionId: state.sessionId,
      mode,
      path: handoff.path,
      absolutePath: path.resolve(this.options.root, handoff.path),
      executor: executor.data,
      cost: handoffCost(handoff),
    });
  }

  private async overflowStarted(state: SessionState): Promise<void> {
    const crossing: Crossing = { owner: 'unknown', attempted: false, action: null };
    this.crossings.set(state.file, crossing);
    // The event goes out the moment the crossing is read; who owns the session is asked after
    // (even starting that question — a socket to the session's lock — took ~0.15 ms, bench a).
    // Listeners that want the owner (the notification) wait on ownerOf().
    let ownerKnown!: (owner: Owner) => void;
    this.owners.set(state.sessionId, new Promise<Owner>((resolve) => (ownerKnown = resolve)));
    const usage = state.latestUsage?.prompt_tokens ?? 0;
    this.options.events.emit('session.overflowed', {
      sessionId: state.sessionId,
      promptTokens: usage,
      maxContextTokens: state.maxContextTokens ?? 0,
      source: state.kind,
    });
    crossing.owner = await this.options.isOwned(state.file).then(
      (owned): Owner => (owned ? 'live' : 'none'),
      (): Owner => 'unknown',
    );
    ownerKnown(crossing.owner);
    if (this.crossings.get(state.file) !== crossing) return; // already over: it dropped below, or closed
    const owned = crossing.owner === 'live';
    if (state.kind !== 'ai-zen') {
      crossing.action = `the daemon cannot hand over ${state.kind} sessions yet`;
      return;
    }
    if (owned) {
      crossing.action = 'left to its owner';
      this.options.logger.info({ sessionId: state.sessionId, promptTokens: usage }, 'overflowed session is owned by a live ai-zen process; leaving the migration to it');
      return;
    }
    this.migrate(state, crossing);
  }

  private migrate(state: SessionState, crossing: Crossing): void {
    crossing.attempted = true;
    crossing.action = 'migrating';
    this.options.migrator.run({ sessionId: state.sessionId, mode: 'migrate', reason: 'overflow' }).then(
      (outcome) => {
        crossing.action = `migrated to ${outcome.newSessionId?.slice(0, 8) ?? '?'} (${outcome.path})`;
      },
      (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        if (SessionOwnedError.isInstance(error)) {
          crossing.owner = 'live';
          crossing.attempted = false;
          crossing.action = 'left to its owner';
          return;
        }
        crossing.action = `failed: ${reason}`;
        this.options.logger.warn({ sessionId: state.sessionId, reason }, 'the daemon could not hand over an overflowed session');
      },
    );
  }
}

/** A source that does not record the cost reports none. */
function handoffCost(handoff: SessionState['lastHandoff']): { requests: number; prompt_tokens: number; completion_tokens: number } {
  const cost = handoff?.cost;
  return { requests: cost?.requests ?? 0, prompt_tokens: cost?.prompt_tokens ?? 0, completion_tokens: cost?.completion_tokens ?? 0 };
}
