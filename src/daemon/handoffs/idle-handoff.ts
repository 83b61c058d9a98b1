// When a session sitting idle is handed off while its prompt cache is still warm (pure): the person
// who comes back continues fresh from the document instead of re-writing the whole context at full
// price. The runner (foreign-sessions.ts) arms a timer for the point planned here and, when it
// passes, feeds the crossing's step an `idle` event; the step allows one document per idle stretch.
import type { IdleHandoffConfig } from '../../config/agents-config.js';
import type { Env } from '../../paths.js';
import type { SessionState } from '../watching/session-source.js';

/** With a 1-hour cache: well before Claude Code's own idle compaction (about 54 minutes after the last reply). */
export const ONE_HOUR_CACHE_AFTER_MINUTES = 45;

export type IdlePlan =
  /** Never in this stretch: the setting is off, the agent's cache rules are unknown, the session is small, or its cache short. */
  | { readonly state: 'off'; readonly why: string }
  /** Not idle: mid-turn or running a tool; planned again at its next line. */
  | { readonly state: 'busy'; readonly why: string }
  /** Idle past its point already when the daemon first saw its last reply (a transcript from before it started): old news. */
  | { readonly state: 'old'; readonly why: string }
  /** Handed off at `at` (ms) if nothing happens before; `since`: when the stretch began, clamped to when it was seen. */
  | {
      readonly state: 'waiting';
      readonly stretch: string;
      readonly since: number;
      readonly at: number;
      readonly cacheMinutes: 5 | 60 | null;
    };

export interface IdleInput {
  readonly state: SessionState;
  /** The agent's setting; null: the agent is never handed off while idle. */
  readonly settings: IdleHandoffConfig | null;
  readonly label: string;
  /** The cache's lifetime the agent's environment sets, when it does. */
  readonly environmentCacheMinutes: 5 | 60 | null;
  /** When the daemon first saw the session's last reply (ms). */
  readonly replySeenAt: number | null;
}

/** The idle stretch a session's last reply starts: one idle document at most for each. */
export function idleStretchOf(state: SessionState): string | null {
  const turn = state.turn;
  if (!turn?.lastReplyAt) return null;
  return `${turn.lastReplyId ?? ''}@${turn.lastReplyAt}`;
}

export function planIdle(input: IdleInput): IdlePlan {
  const { state, settings } = input;
  if (settings === null || state.turn === undefined) return { state: 'off', why: `no idle handoff for ${input.label} sessions` };
  if (!settings.enabled) return { state: 'off', why: 'idle handoff is off' };
  if (state.closed || state.otherRepo) return { state: 'off', why: 'not a session of this repo that is open' };
  const tokens = state.latestUsage?.prompt_tokens ?? 0;
  if (tokens < settings.minTokens) return { state: 'off', why: `${tokens} tokens, under minTokens ${settings.minTokens}` };
  const turn = state.turn;
  const stretch = idleStretchOf(state);
  if (stretch === null || turn.lastReplyAt === null) return { state: 'busy', why: 'no reply yet' };
  if (turn.awaitingReply) return { state: 'busy', why: 'mid-turn: a reply is on its way' };
  if (turn.runningToolIds.length > 0) return { state: 'busy', why: 'running a tool' };
  const cacheMinutes = turn.cacheMinutes ?? input.environmentCacheMinutes ?? settings.cacheMinutes;
  const afterMinutes = settings.afterMinutes ?? (cacheMinutes === 60 ? ONE_HOUR_CACHE_AFTER_MINUTES : null);
  if (afterMinutes === null)
    return {
      state: 'off',
      why:
        cacheMinutes === 5
          ? '5-minute cache: a re-write costs about what a document does'
          : "the cache's lifetime is not known (set idleHandoff.cacheMinutes or afterMinutes)",
    };
  const stamped = Date.parse(turn.lastReplyAt);
  const seen = input.replySeenAt ?? stamped;
  // The reply's own stamp, but never later than the daemon saw it (a clock ahead, a machine that slept).
  const since = Number.isFinite(stamped) ? Math.min(stamped, seen) : seen;
  const at = since + afterMinutes * 60_000;
  if (Number.isFinite(seen) && seen > at) return { state: 'old', why: 'idle past its point before the daemon saw it' };
  return { state: 'waiting', stretch, since, at, cacheMinutes };
}

/**
 * The cache lifetime Claude Code's environment chooses, as its client 2.1.332 reads it: a forced
 * 5 minutes wins over a 1-hour request. Only the daemon's own environment is read (a daemon started
 * from a Claude Code hook inherits the client's); the transcript, when it says, wins over this.
 */
export function claudeCacheMinutesFromEnv(env: Env): 5 | 60 | null {
  const on = (name: string) => {
    const value = env[name]?.trim().toLowerCase();
    return value !== undefined && value !== '' && value !== '0' && value !== 'false';
  };
  if (on('FORCE_PROMPT_CACHING_5M')) return 5;
  const ttl = env.CLAUDE_CODE_PROMPT_CACHE_TTL?.trim().toLowerCase();
  if (ttl === '1h') return 60;
  if (ttl === '5m') return 5;
  if (on('ENABLE_PROMPT_CACHING_1H')) return 60;
  return null;
}
