// `ai-zen-daemon transcript <id> --last N`: the last turns a person saw of any watched
// session of this repo — ai-zen's own, Claude Code's, Codex's — found by its id or a unique prefix
// of it, read from the transcript (never written) and bounded in bytes, so a handoff document's
// first step can read the conversation back without flooding its successor's context.
import { AiZenError } from '../../errors.js';
import { DEFAULT_LAST_TURNS, lastTurns, visibleTurns } from '../../handoff/visible-turns.js';
import type { ProjectPaths } from '../../paths.js';
import { namesSession } from '../../short-id.js';
import type { AgentMessage } from '../../session/session-recorder.js';
import { SessionStore } from '../../session/store.js';
import { findSource, type SessionSource, type SessionState } from '../watching/session-source.js';
import type { WatchedSessions } from '../watching/transcript-watchers.js';
import type { TranscriptReply } from './status-schema.js';

export interface TranscriptDeps {
  readonly paths: ProjectPaths;
  readonly sources: readonly SessionSource[];
  readonly watcher: WatchedSessions;
}

/** The one session of this repo named by `session`: its id, or a prefix of its id or of its short id (what `status` prints). */
function sessionByPrefix(states: readonly SessionState[], session: string): SessionState {
  const exact = states.find((state) => state.sessionId === session);
  if (exact) return exact;
  const matching = states.filter((state) => namesSession(session, state.sessionId));
  if (matching.length === 1) return matching[0]!;
  if (matching.length === 0)
    throw new AiZenError(
      'session',
      `no session of this repo has an id or short id starting with ${session} (ai-zen-daemon sessions lists them)`,
    );
  const some = matching
    .slice(0, 5)
    .map((state) => state.sessionId)
    .join(', ');
  throw new AiZenError('session', `${matching.length} sessions have an id starting with ${session} (${some}); give more of the id`);
}

async function messagesOf(state: SessionState, deps: TranscriptDeps): Promise<readonly AgentMessage[]> {
  const source = findSource(deps.sources, state.file);
  if (source?.handoff) return (await source.handoff.readEvidence(state.file)).messages;
  const content = await new SessionStore(deps.paths).read(state.sessionId);
  return content.lines.flatMap((line) =>
    line.type === 'message' ? [line.definition ? { message: line.message, definition: true } : { message: line.message }] : [],
  );
}

export async function answerTranscript(params: { session: string; last?: number }, deps: TranscriptDeps): Promise<TranscriptReply> {
  const states = deps.watcher.states().filter((state) => !state.otherRepo && state.refusedBecause === undefined);
  const state = sessionByPrefix(states, params.session);
  const turns = visibleTurns(await messagesOf(state, deps));
  return {
    sessionId: state.sessionId,
    agent: state.kind,
    total: turns.length,
    turns: lastTurns(turns, params.last ?? DEFAULT_LAST_TURNS),
  };
}
