// What the desktop hears from the daemon (D4): a warning before the window is full (S5), overflow,
// and each handoff's outcome — written, failed, committed, or not committed yet. One notification per event; the notifier never throws.
import type { AnyEvent } from '../../events.js';
import { describeChecks } from '../../handoff/checks/describe-checks.js';
import { formatTokens } from './format-tokens.js';
import type { Notification } from './notifier.js';

/** Extra context the event itself does not carry. */
export interface NotificationContext {
  /** For session.overflowed: who will hand the session over. */
  readonly overflowOwner?: 'live' | 'none' | 'unknown';
}

export function notificationFor(event: AnyEvent, context: NotificationContext = {}): Notification | null {
  switch (event.name) {
    case 'session.overflowed': {
      const { sessionId, promptTokens, maxContextTokens } = event.payload;
      // Another agent's crossing is announced with its document (handoff.written), not twice.
      if (event.payload.agent !== undefined && event.payload.agent !== 'ai-zen') return null;
      const who =
        context.overflowOwner === 'live'
          ? ' — its ai-zen process hands it over'
          : context.overflowOwner === 'none'
            ? ' — the daemon hands it over'
            : '';
      return {
        title: 'ai-zen: context window full',
        body: `session ${sessionId.slice(0, 8)} is at ${formatTokens(promptTokens)}/${formatTokens(maxContextTokens)} tokens${who}`,
        urgency: 'critical',
      };
    }
    case 'session.warned':
      return warningNotification(event.payload);
    case 'handoff.written':
      if (event.payload.successorCommand !== undefined) return agentHandoffNotification(event.payload);
      return {
        title: 'ai-zen: handoff written',
        body: `${event.payload.path} (session ${event.payload.sessionId.slice(0, 8)}, ${event.payload.executor})${checkedSuffix(event.payload.checks)}`,
      };
    case 'handoff.failed':
      return {
        title: 'ai-zen: handoff failed',
        body: `session ${event.payload.sessionId.slice(0, 8)}: ${event.payload.reason}`,
        urgency: 'critical',
      };
    case 'handoff.committed':
      return { title: 'ai-zen: handoff committed', body: `${event.payload.commit.slice(0, 7)} ${event.payload.path}` };
    case 'handoff.commit-deferred':
      return { title: 'ai-zen: handoff not committed yet', body: `${event.payload.path}: ${event.payload.reason}` };
    default:
      return null;
  }
}

const AGENT_LABELS: Record<string, string> = { 'claude-code': 'Claude Code', codex: 'Codex' };

/**
 * S5: `Claude Code session 1a2b3c4d at 61%` / `ai-zen session 1a2b3c4d at 82%`, and how to hand off
 * now. `ai-zen-daemon handoff` takes only ai-zen's own sessions, by their whole id; another agent's
 * session is handed off by the daemon at its handoffAt.
 */
function warningNotification(payload: Extract<AnyEvent, { name: 'session.warned' }>['payload']): Notification {
  const { sessionId, agent, percent, warnAt, promptTokens, maxContextTokens, handoffAt } = payload;
  const label = agent === 'ai-zen' ? 'ai-zen' : (AGENT_LABELS[agent] ?? agent);
  const usage = `${formatTokens(promptTokens)}/${formatTokens(maxContextTokens)} tokens, warning at ${warnAt}%`;
  const how =
    agent === 'ai-zen'
      ? `hand off now with /handoff or /migrate in its chat, or: ai-zen-daemon handoff ${sessionId}`
      : `the daemon hands it off at ${handoffAt ?? '?'}%, with a document and the command that continues fresh`;
  return { title: `${label} session ${sessionId.slice(0, 8)} at ${percent}%`, body: `${usage} — ${how}` };
}

/** `Claude Code session 1a2b3c4d at 71% — handoff written: <path>; continue with: claude "…"`. */
function agentHandoffNotification(payload: Extract<AnyEvent, { name: 'handoff.written' }>['payload']): Notification {
  const label = AGENT_LABELS[payload.agent ?? ''] ?? payload.agent ?? 'agent';
  const at = payload.percent !== undefined ? ` at ${payload.percent}%` : '';
  return {
    title: `ai-zen: ${label} handoff written`,
    body: `${label} session ${payload.sessionId.slice(0, 8)}${at} — handoff written: ${payload.path}; continue with: ${payload.successorCommand ?? ''}${checkedSuffix(payload.checks)}`,
  };
}

/** F1–F4: " — checked ✓" or " — check failed: …"; nothing when the document was not checked. */
function checkedSuffix(checks: Parameters<typeof describeChecks>[0]): string {
  const checked = describeChecks(checks);
  return checked === null ? '' : ` — ${checked}`;
}
