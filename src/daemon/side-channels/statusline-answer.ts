// The answer to Claude Code's statusline (`ai-zen-daemon statusline`): where the daemon
// hands this session off, where Claude compacts it by itself (learned, else the table), and when
// its last handoff document was written (else the repo's). The statusline brings its own exact
// reading of the window; the thresholds follow that reading's window when the watcher has not read
// the transcript yet (a session that has just started, or one outside the watched folders).
import type { AgentWindowSettings } from '../../config/agent-models.js';
import type { RequestParams } from '../../ipc/protocol.js';
import type { HandoffRecord } from '../committing/handoff-committer.js';
import { agentThresholds, type SessionThresholds } from '../watching/session-source.js';
import type { StatuslineReply } from './status-schema.js';
import type { IdleStanding } from '../handoffs/foreign-sessions.js';

export interface StatuslineDeps {
  /** The watcher's state of a transcript (its thresholds once read). */
  readonly stateOf: (file: string) => { readonly sessionId: string; readonly thresholds?: SessionThresholds } | null;
  readonly documents: () => readonly HandoffRecord[];
  /** config.agents['claude-code'] and what was learned of where Claude compacts. */
  readonly settings: AgentWindowSettings;
  /** Where the session's idle handoff stands (foreign-sessions.ts). */
  readonly idleOf?: (file: string) => IdleStanding | null;
}

export function answerStatusline(params: RequestParams<'statusline'>, deps: StatuslineDeps): StatuslineReply {
  const state = params.transcriptPath ? deps.stateOf(params.transcriptPath) : null;
  const thresholds = state?.thresholds ?? fromReading(params, deps.settings);
  const sessionId = params.sessionId ?? state?.sessionId ?? null;
  const documents = deps.documents();
  const own = sessionId === null ? undefined : documents.findLast((record) => record.sessionId === sessionId);
  const latest = own ?? documents.at(-1);
  return {
    handoffAt: thresholds.handoffAt,
    compactsAt: thresholds.compactsAt,
    compactsAtLearned: thresholds.compactsAtLearned === true,
    lastDocumentAt: latest?.at ?? null,
    lastDocumentOfSession: own !== undefined,
    idle: idleOfSession(params.transcriptPath ? (deps.idleOf?.(params.transcriptPath) ?? null) : null),
  };
}

/** `cache warm · 12m left` while the session waits to be handed off idle, then `handed off while idle 14:02`. */
function idleOfSession(standing: IdleStanding | null): StatuslineReply['idle'] {
  if (standing === null) return null;
  const { plan } = standing;
  if (standing.handedOffAt !== null) return { cacheUntil: null, handedOffAt: new Date(standing.handedOffAt).toISOString() };
  if (plan.state !== 'waiting' || plan.cacheMinutes === null) return null;
  return { cacheUntil: new Date(plan.since + plan.cacheMinutes * 60_000).toISOString(), handedOffAt: null };
}

function fromReading(params: RequestParams<'statusline'>, settings: AgentWindowSettings): SessionThresholds {
  return agentThresholds('claude-code', params.model ?? null, settings.contextWindow ?? params.contextWindowSize ?? null, settings);
}
