// Turns what the watcher reads into what the daemon does (D1, D3):
// - a usage line that reaches the warning threshold → `session.warned`, once per crossing (S5);
// - a usage line that crosses the window → `session.overflowed`, once per crossing; then the
//   session's live owner hands it over, or — no live owner — the daemon migrates it itself;
// - a `handoff` line (whoever wrote it) → the document goes to the committer, `handoff.written`;
// - a `migrated` line → `session.migrated`; the session is closed and needs no more work;
// - a `skip` line (R19: Esc at the chat's selector) → this crossing is the person's choice: not
//   migrated, not when its owner leaves, not on retry, until usage drops and crosses again.
// Lines read at startup are history: they feed the committer and the state, not the news.
import path from 'node:path';
import type { Logger } from 'pino';
import { SessionOwnedError } from '../../errors.js';
import type { EventBus } from '../../events.js';
import type { HandoffMode } from '../../handoff/migration-service.js';
import { ExecutorName } from '../../session/format.js';
import type { DaemonMigrator } from './daemon-migrator.js';
import type { HandoffCommitter } from '../committing/handoff-committer.js';
import { claimProblem } from '../committing/handoff-doc-check.js';
import { retryDelayMs } from './retry-backoff.js';
import type { CompactionPoints } from '../watching/compaction-points.js';
import type { HandoffSeenInSession, SessionState, SessionUpdate } from '../watching/session-source.js';
import { shortId } from '../../short-id.js';
import { usagePercent } from '../../usage-percent.js';

export type Owner = 'live' | 'none' | 'unknown';

export interface SessionMonitorOptions {
  readonly root: string;
  readonly events: EventBus;
  readonly committer: HandoffCommitter;
  readonly migrator: Pick<DaemonMigrator, 'run'>;
  readonly logger: Logger;
  /** Whether a live process holds the session's lock. */
  readonly isOwned: (file: string) => Promise<boolean>;
  /** Hands off another agent's session that crossed its handoffAt (X3); absent: announced only. */
  readonly foreign?: ForeignSessions;
  /** Current state of a session file, to see whether it is still over its limit when a retry is due. */
  readonly stateOf?: (file: string) => SessionState | null;
  /**
   * S5: the warning threshold of ai-zen's own sessions (config `warnAt`, percent of the window);
   * another agent's comes with its state (`agents.<agent>.warnAt`). Absent or `enabled: false`: no warnings.
   */
  readonly warnings?: { readonly enabled: boolean; readonly warnAt: number };
  /** Where each agent compacts each model by itself, learned from the compactions read. */
  readonly compactionPoints?: Pick<CompactionPoints, 'observe'>;
}

/** The daemon's part for another agent's sessions (foreign-sessions.ts). */
export interface ForeignSessions {
  /** A transcript was read (the first time: when the daemon first saw it, which a clock that is wrong cannot move). */
  seen?(state: SessionState): void;
  /** The session crossed its handoffAt: hand it over unless a loop guard says no (the reason is the action shown). */
  crossed(state: SessionState, info: { readonly initial: boolean; readonly firstReading?: boolean }): void;
  /**
   * A new reading of a session still over its threshold: a crossing the loop guard held back (a
   * session first seen above waits 10 more points; one in its grace window goes once over 95%) is
   * judged again.
   */
  grew?(state: SessionState): void;
  /** The session went below its threshold, or its transcript started over. */
  reset(state: SessionState): void;
  /** What status shows for it (null: nothing done yet). */
  actionFor(file: string): string | null;
  successorCommandFor(file: string): string | null;
  /** The session's handoff document, once it has one. */
  documentOf?(file: string): string | null;
}

/** What the daemon did or leaves to others for one session, for status. */
export interface SessionAction {
  readonly owner: Owner;
  /** e.g. 'left to its owner', 'migrating', 'migrated to 1a2b3c4d', 'failed: …'. */
  readonly action: string | null;
}

/** What status shows for a crossing the person declined in the chat (R19). */
export const SKIPPED_IN_CHAT = 'skipped in the chat (Esc); handed off at the next crossing';

interface Crossing {
  owner: Owner;
  attempted: boolean;
  action: string | null;
  /** R19: the person declined this crossing in the chat; the daemon never migrates it. */
  declined?: boolean;
  /** Failed migrations of this crossing so far; the next one is scheduled. */
  failures?: number;
  retry?: NodeJS.Timeout;
}

export class SessionMonitor {
  /** The current overflow crossing of each overflowed session file. */
  private readonly crossings = new Map<string, Crossing>();
  private readonly owners = new Map<string, Promise<Owner>>();
  /** Session files at or above their warning threshold, warned (or past warning) for this crossing. */
  private readonly warned = new Set<string>();

  constructor(private readonly options: SessionMonitorOptions) {}

  handle(update: SessionUpdate, info: { readonly initial: boolean }): void {
    const { state, previous } = update;
    if (update.missing || state.refusedBecause !== undefined) {
      this.crossings.delete(state.file);
      this.warned.delete(state.file);
      return;
    }
    if (state.otherRepo) return; // another repo's transcript
    if (state.kind !== 'ai-zen') this.options.foreign?.seen?.(state);
    this.noticeWarning(state, info.initial);
    for (const handoff of update.handoffs) this.noticeHandoff(state, handoff, info.initial);
    if ((update.compactionsSeen ?? 0) > 0) {
      // Read at start-up it is history, no news, but it still says where the agent compacts.
      this.learnCompaction(state);
      if (!info.initial) this.noticeCompaction(state);
    }
    if (state.closed && !previous.closed && !info.initial && state.successorId) {
      this.options.events.emit('session.migrated', {
        oldId: state.sessionId,
        newId: state.successorId,
        path: state.lastHandoff?.path ?? '',
      });
    }
    if (!state.overflowed) {
      // Dropped below the window or closed: the next crossing is news again.
      if (this.crossings.delete(state.file) && state.kind !== 'ai-zen') this.options.foreign?.reset(state);
      return;
    }
    if (update.overflowStarted || !this.crossings.has(state.file))
      void this.overflowStarted(state, info.initial, previous.latestUsage === null);
    else if (state.kind !== 'ai-zen' && state.latestUsage !== previous.latestUsage) this.options.foreign?.grew?.(state);
    if (state.kind === 'ai-zen' && state.declined) this.noticeDecline(state);
  }

  /** R19: a skip line for the current crossing; a migration already running is not stopped. */
  private noticeDecline(state: SessionState): void {
    const crossing = this.crossings.get(state.file);
    if (!crossing || crossing.declined) return;
    crossing.declined = true;
    clearTimeout(crossing.retry);
    if (crossing.action === 'migrating' || crossing.action?.startsWith('migrated')) return;
    crossing.action = SKIPPED_IN_CHAT;
    this.options.logger.info(
      { sessionId: state.sessionId, promptTokens: state.declined?.promptTokens },
      'the person skipped this overflow in the chat; the daemon leaves it until the next crossing',
    );
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
        if (crossing.declined) {
          this.options.logger.info(
            { sessionId: state.sessionId },
            'the owner of an overflowed session is gone; it was skipped in the chat, so the daemon leaves it until the next crossing',
          );
          return;
        }
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
    const foreignAction = this.options.foreign?.actionFor(file) ?? null;
    if (foreignAction !== null) return { owner: crossing?.owner ?? 'unknown', action: foreignAction };
    return crossing ? { owner: crossing.owner, action: crossing.action } : null;
  }

  /** The command that starts the successor of another agent's session, once a document exists (X3). */
  successorCommandFor(file: string): string | null {
    return this.options.foreign?.successorCommandFor(file) ?? null;
  }

  /**
   * S5: below → at-or-above warnAt, not yet over the limit: warn once; below again re-arms. A
   * session read at start-up already above it is history (no news), as is one already over its
   * limit (the overflow speaks then).
   */
  private noticeWarning(state: SessionState, initial: boolean): void {
    const warnAt = state.thresholds?.warnAt ?? this.options.warnings?.warnAt ?? null;
    const tokens = state.latestUsage?.prompt_tokens ?? null;
    const window = state.maxContextTokens;
    const reached = warnAt !== null && tokens !== null && window !== null && window > 0 && tokens * 100 >= warnAt * window;
    if (!reached || state.closed) {
      this.warned.delete(state.file);
      return;
    }
    if (this.warned.has(state.file)) return;
    this.warned.add(state.file);
    if (initial || state.overflowed || this.options.warnings?.enabled !== true) return;
    const percent = usagePercent(tokens, window);
    this.options.logger.info(
      { sessionId: state.sessionId, agent: state.kind, percent, warnAt },
      'the session reached its warning threshold',
    );
    this.options.events.emit('session.warned', {
      sessionId: state.sessionId,
      agent: state.kind,
      percent,
      warnAt,
      promptTokens: tokens,
      maxContextTokens: window,
      handoffAt: state.thresholds?.handoffAt ?? null,
      transcript: state.file,
    });
  }

  private learnCompaction(state: SessionState): void {
    const compaction = state.lastCompaction;
    if (state.kind === 'ai-zen' || !compaction?.preTokens || !state.maxContextTokens) return;
    this.options.compactionPoints?.observe(state.kind, state.model, {
      at: compaction.at ?? new Date().toISOString(),
      preTokens: compaction.preTokens,
      window: state.maxContextTokens,
      trigger: compaction.trigger,
    });
  }

  private noticeCompaction(state: SessionState): void {
    const percent = percentOf(state);
    this.options.logger.info(
      { sessionId: state.sessionId, agent: state.kind, transcript: state.file, percent },
      'the agent compacted its own history',
    );
    this.options.events.emit('session.compacted', {
      sessionId: state.sessionId,
      agent: state.kind,
      transcript: state.file,
      at: state.lastCompactionAt ?? new Date().toISOString(),
      percent,
      ...documentField(this.options.foreign?.documentOf?.(state.file) ?? null),
    });
  }

  private noticeHandoff(state: SessionState, handoff: HandoffSeenInSession, initial: boolean): void {
    // A file read again from the start (truncated, replaced) repeats handoffs already known: no news.
    if (this.options.committer.has(handoff.path)) return;
    const seen = {
      path: handoff.path,
      sessionId: state.sessionId,
      executor: handoff.executor,
      mode: handoff.mode,
      at: handoff.at,
      sha256: handoff.sha256 ?? null,
      redactions: handoff.redactions ?? null,
      ...(handoff.checks ? { checks: handoff.checks } : {}),
    };
    // The committer refuses it and says why (status, handoffs); it is no news worth announcing.
    const problem = claimProblem(seen);
    if (problem !== null)
      this.options.logger.warn(
        { sessionId: state.sessionId, path: handoff.path, reason: problem },
        'a handoff line names a document ai-zen did not seal; it is not committed',
      );
    this.options.committer.add(seen, { announce: !initial });
    if (initial || problem !== null) return;
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
      ...(handoff.checks ? { checks: handoff.checks } : {}),
    });
  }

  private async overflowStarted(state: SessionState, initial = false, firstReading = false): Promise<void> {
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
      // Another agent's session also says where it is and how far it is (X3).
      ...(state.kind === 'ai-zen'
        ? {}
        : {
            agent: state.kind,
            transcript: state.file,
            percent: percentOf(state) ?? 0,
            handoffAt: state.thresholds?.handoffAt ?? null,
            compactsAt: state.thresholds?.compactsAt ?? null,
          }),
    });
    crossing.owner = await this.options.isOwned(state.file).then(
      (owned): Owner => (owned ? 'live' : 'none'),
      (): Owner => 'unknown',
    );
    ownerKnown(crossing.owner);
    if (this.crossings.get(state.file) !== crossing) return; // already over: it dropped below, or closed
    const owned = crossing.owner === 'live';
    if (state.kind !== 'ai-zen') {
      crossing.attempted = true;
      if (this.options.foreign) this.options.foreign.crossed(state, { initial, firstReading });
      else crossing.action = `the daemon cannot hand off ${state.kind} sessions`;
      return;
    }
    if (crossing.declined) {
      crossing.action = SKIPPED_IN_CHAT;
      return;
    }
    if (owned) {
      crossing.action = 'left to its owner';
      this.options.logger.info(
        { sessionId: state.sessionId, promptTokens: usage },
        'overflowed session is owned by a live ai-zen process; leaving the migration to it',
      );
      return;
    }
    this.migrate(state, crossing);
  }

  /** A failed crossing's next attempt, while the session is still over its limit and nobody owns it. */
  private retry(file: string, crossing: Crossing): void {
    if (this.crossings.get(file) !== crossing || crossing.declined) return; // dropped below, closed, a new crossing, or skipped (R19)
    const state = this.options.stateOf?.(file) ?? null;
    if (!state?.overflowed || state.closed) return;
    void this.options.isOwned(file).then((owned) => {
      if (this.crossings.get(file) !== crossing || crossing.declined) return;
      if (owned) {
        crossing.owner = 'live';
        crossing.action = 'left to its owner';
        return;
      }
      this.migrate(state, crossing);
    });
  }

  private migrate(state: SessionState, crossing: Crossing): void {
    crossing.attempted = true;
    crossing.action = 'migrating';
    this.options.migrator.run({ sessionId: state.sessionId, mode: 'migrate', reason: 'overflow' }).then(
      (outcome) => {
        crossing.action = `migrated to ${outcome.newSessionId ? shortId(outcome.newSessionId) : '?'} (${outcome.path})`;
      },
      (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        if (SessionOwnedError.isInstance(error)) {
          crossing.owner = 'live';
          crossing.attempted = false;
          crossing.action = 'left to its owner';
          return;
        }
        if (crossing.declined) {
          crossing.action = SKIPPED_IN_CHAT; // skipped while this attempt ran: no retry (R19)
          return;
        }
        crossing.failures = (crossing.failures ?? 0) + 1;
        const delay = retryDelayMs(crossing.failures);
        crossing.action = `failed: ${reason}; tried again in ${Math.round(delay / 1000)} s, or now with: ai-zen-daemon migrate ${state.sessionId}`;
        this.options.logger.warn(
          { sessionId: state.sessionId, reason, retryInMs: delay },
          'the daemon could not hand off an overflowed session; it tries again',
        );
        crossing.retry = setTimeout(() => this.retry(state.file, crossing), delay);
        crossing.retry.unref();
      },
    );
  }
}

function percentOf(state: SessionState): number | null {
  const tokens = state.latestUsage?.prompt_tokens;
  return tokens === undefined || state.maxContextTokens === null || state.maxContextTokens <= 0
    ? null
    : usagePercent(tokens, state.maxContextTokens);
}

/** A source that does not record the cost reports none. */
function handoffCost(handoff: SessionState['lastHandoff']): { requests: number; prompt_tokens: number; completion_tokens: number } {
  const cost = handoff?.cost;
  return { requests: cost?.requests ?? 0, prompt_tokens: cost?.prompt_tokens ?? 0, completion_tokens: cost?.completion_tokens ?? 0 };
}

const documentField = (document: string | null) => (document === null ? {} : { document });
