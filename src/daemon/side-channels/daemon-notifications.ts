// What the desktop hears from the daemon (D4): a warning before the window is full (S5), overflow,
// and each handoff's outcome. Quiet: ONE notification per handoff — written or failed,
// with its commit folded in (committed, or why not yet), never a second one for the commit; an
// overflow the daemon hands off itself is announced by that handoff; and no critical urgency for a
// session whose live ai-zen process is already showing its selector. The notifier never throws.
import type { CommitStatus } from '../committing/handoff-committer.js';
import { agentLabel } from '../../config/agent-names.js';
import type { AnyEvent } from '../../events.js';
import { describeChecks } from '../../handoff/checks/describe-checks.js';
import { formatTokens } from '../../format-tokens.js';
import type { Notification } from './notifier.js';
import { shortId } from '../../short-id.js';
import { idleReturnWords } from '../handoffs/idle-return.js';
import { forkCostWords } from '../handoffs/fork-cost-words.js';

/** Extra context the event itself does not carry. */
export interface NotificationContext {
  /** For session.overflowed: who will hand the session over. */
  readonly overflowOwner?: 'live' | 'none' | 'unknown';
  /** For handoff.written: the commit's outcome as it stood when the notification went out; null: not committed by the daemon. */
  readonly commit?: CommitStatus | null;
}

export function notificationFor(event: AnyEvent, context: NotificationContext = {}): Notification | null {
  switch (event.name) {
    case 'session.overflowed': {
      const { sessionId, promptTokens, maxContextTokens } = event.payload;
      // Another agent's crossing is announced with its document (handoff.written), not twice.
      if (event.payload.agent !== undefined && event.payload.agent !== 'ai-zen') return null;
      // The daemon hands it over itself: its handoff (written or failed) is the one notification.
      if (context.overflowOwner === 'none') return null;
      const live = context.overflowOwner === 'live';
      return {
        title: 'ai-zen: context window full',
        body: `session ${shortId(sessionId)} is at ${formatTokens(promptTokens)}/${formatTokens(maxContextTokens)} tokens${live ? ' — its ai-zen process hands it over' : ''}`,
        // Its chat already shows the selector: the person is there, nothing is urgent.
        urgency: live ? 'normal' : 'critical',
      };
    }
    case 'session.warned':
      return warningNotification(event.payload);
    case 'session.compacted':
      return compactedNotification(event.payload);
    case 'handoff.written':
      // Written in the agent's PreCompact hook: the compaction's own notification names it (session.compacted).
      if (event.payload.beforeCompaction) return null;
      if (event.payload.successorCommand !== undefined) return agentHandoffNotification(event.payload, context.commit);
      return {
        title: 'ai-zen: handoff written',
        body: `${event.payload.path} (session ${shortId(event.payload.sessionId)}, ${event.payload.executor})${checkedSuffix(event.payload.checks)}${commitSuffix(context.commit)}`,
      };
    case 'handoff.failed':
      return {
        title: 'ai-zen: handoff failed',
        body: `session ${shortId(event.payload.sessionId)}: ${event.payload.reason}`,
        urgency: 'critical',
      };
    // Folded into the handoff's own notification (commitSuffix): `status` and `handoffs` tell the rest.
    case 'handoff.committed':
    case 'handoff.commit-deferred':
      return null;
    default:
      return null;
  }
}

/**
 * S5: `Claude Code session 1a2b3c4d at 61%` / `ai-zen session 1a2b3c4d at 82%`, and how to hand off
 * now: `ai-zen-daemon handoff <short id>` takes any agent's session by the short id shown here
 *; another agent's session is also handed off by the daemon at its handoffAt.
 */
function warningNotification(payload: Extract<AnyEvent, { name: 'session.warned' }>['payload']): Notification {
  const { sessionId, agent, percent, warnAt, promptTokens, maxContextTokens, handoffAt } = payload;
  const label = agentLabel(agent);
  const usage = `${formatTokens(promptTokens)}/${formatTokens(maxContextTokens)} tokens, warning at ${warnAt}%`;
  const command = `ai-zen-daemon handoff ${shortId(sessionId)}`;
  const how =
    agent === 'ai-zen'
      ? `hand off now with /handoff or /migrate in its chat, or: ${command}`
      : `the daemon hands it off at ${handoffAt ?? '?'}%, with a document and the command that continues fresh; to hand it off now: ${command}`;
  return { title: `${label} session ${shortId(sessionId)} at ${percent}%`, body: `${usage} — ${how}` };
}

/**
 * The agent compacted a session that was handed off (the person kept working, or its hook wrote the
 * document as it compacted): the document is the record of what the summary dropped, not a place to
 * continue from. A session with no document compacting is nothing to announce.
 */
function compactedNotification(payload: Extract<AnyEvent, { name: 'session.compacted' }>['payload']): Notification | null {
  if (payload.document === undefined) return null;
  const label = agentLabel(payload.agent);
  const at = payload.percent !== null ? ` at ${payload.percent}%` : '';
  return {
    title: `ai-zen: ${label} compacted a session`,
    body: `${label} compacted session ${shortId(payload.sessionId)}${at} — ${payload.document} records the state before the compaction`,
  };
}

/** `Claude Code session 1a2b3c4d at 71% — handoff written: <path>; continue with: claude "…"`. */
function agentHandoffNotification(
  payload: Extract<AnyEvent, { name: 'handoff.written' }>['payload'],
  commit: CommitStatus | null | undefined,
): Notification {
  const label = payload.agent === undefined ? 'agent' : agentLabel(payload.agent);
  const at = payload.percent !== undefined ? ` at ${payload.percent}%` : '';
  // The person is away: what they find on return is the choice, fresh from the document or the whole session.
  if (payload.trigger === 'idle')
    return {
      title: `ai-zen: ${label} handed off while idle`,
      body: payload.idleReturn
        ? `${label} session ${shortId(payload.sessionId)} ${idleReturnWords({ document: payload.path, ...payload.idleReturn }, '/clear')} (or start fresh with: ${payload.successorCommand ?? ''})${payload.forkCost ? `; written by a fork of the session: ${forkCostWords(payload.forkCost)}` : ''}${commitSuffix(commit)}`
        : `${label} session ${shortId(payload.sessionId)} handed off while idle → ${payload.path}; /clear continues fresh from it (or: ${payload.successorCommand ?? ''}); resuming the session re-writes its whole context${commitSuffix(commit)}`,
    };
  return {
    title: `ai-zen: ${label} handoff written`,
    body: `${label} session ${shortId(payload.sessionId)}${at} — handoff written: ${payload.path}; continue with: ${payload.successorCommand ?? ''}${checkedSuffix(payload.checks)}${commitSuffix(commit)}`,
  };
}

/** " — committed 1a2b3c4 (on ai-zen/handoffs)", " — not committed yet: why", " — committing…"; nothing when commits are off. */
export function commitSuffix(commit: CommitStatus | null | undefined): string {
  if (!commit) return '';
  switch (commit.state) {
    case 'committed':
      return ` — committed ${commit.commit.slice(0, 7)}${commit.ref ? ` on ${commit.ref.replace(/^refs\/heads\//, '')}` : ''}`;
    case 'deferred':
      return ` — not committed yet: ${commit.reason}`;
    case 'pending':
      return ' — committing…';
    case 'off':
      return '';
  }
}

/** F1–F4: " — checked ✓" or " — check failed: …"; nothing when the document was not checked. */
function checkedSuffix(checks: Parameters<typeof describeChecks>[0]): string {
  const checked = describeChecks(checks);
  return checked === null ? '' : ` — ${checked}`;
}
