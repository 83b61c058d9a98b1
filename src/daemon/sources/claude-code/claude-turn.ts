// Where a Claude Code session's turn stands, folded from its lines (pure): the last reply and its
// stamp, the tool calls still without a result, whether a prompt waits for its reply, and which
// prompt cache the API said it wrote to. The idle handoff reads this, and the Stop hook the last
// reply's text (Claude may run that hook before it has written the turn's last lines).
import { replyHead, type SessionState, type SessionTurn } from '../../watching/session-source.js';
import { asRecord } from '../kit/json-record.js';

export const EMPTY_TURN: SessionTurn = {
  lastReplyAt: null,
  lastReplyId: null,
  lastReplyHead: '',
  runningToolIds: [],
  awaitingReply: false,
  cacheMinutes: null,
};

/** A line of the main chain, as the fold parsed it (only the fields read here). */
export interface TurnLine {
  readonly type: string;
  readonly timestamp?: string | undefined;
  readonly isSidechain?: boolean | undefined;
  readonly message?: { readonly id?: string | undefined; readonly usage?: unknown; readonly [key: string]: unknown } | undefined;
  readonly [key: string]: unknown;
}

/**
 * A question to the person (Claude's AskUserQuestion) waits on them, as a reply that ends its turn
 * with a question does: the cache runs out the same, so the session counts as idle. Any other tool
 * without a result is running — a long build looks the same as a permission prompt from here, and
 * handing off under a running tool would miss its result.
 */
const ASKS_THE_PERSON = new Set(['AskUserQuestion']);

export function observeClaudeTurn(state: SessionState, line: TurnLine): SessionState {
  if (line.isSidechain === true || (line.type !== 'user' && line.type !== 'assistant')) return state;
  const turn = state.turn ?? EMPTY_TURN;
  const next = line.type === 'assistant' ? replied(turn, line) : userSaid(turn, line);
  return next === turn ? state : { ...state, turn: next };
}

function replied(turn: SessionTurn, line: TurnLine): SessionTurn {
  const message = line.message;
  const started = [...turn.runningToolIds];
  for (const part of contentOf(message)) {
    if (part.type === 'tool_use' && typeof part.id === 'string' && !ASKS_THE_PERSON.has(String(part.name)))
      if (!started.includes(part.id)) started.push(part.id);
  }
  // One reply is one line per content block, all with its id: their texts join as the agent joins them.
  const text = contentOf(message)
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => String(part.text))
    .join('\n');
  const sameReply = message?.id !== undefined && message.id === turn.lastReplyId;
  const before = sameReply ? (turn.lastReplyHead ?? '') : '';
  const head = text === '' ? before : replyHead(before === '' ? text.slice(0, 4096) : `${before}\n${text.slice(0, 4096)}`);
  return {
    lastReplyAt: line.timestamp ?? turn.lastReplyAt,
    lastReplyId: message?.id ?? turn.lastReplyId,
    lastReplyHead: head,
    runningToolIds: started.slice(-64),
    awaitingReply: false,
    cacheMinutes: cacheMinutesOf(message?.usage) ?? turn.cacheMinutes,
  };
}

function userSaid(turn: SessionTurn, line: TurnLine): SessionTurn {
  if (line.isMeta === true || line.isCompactSummary === true) return turn;
  const content = line.message?.content;
  const parts = contentOf(line.message);
  const results = parts.filter((part) => part.type === 'tool_result').map((part) => String(part.tool_use_id));
  if (results.length > 0)
    return { ...turn, runningToolIds: turn.runningToolIds.filter((id) => !results.includes(id)), awaitingReply: true };
  const text = typeof content === 'string' ? content : parts.map((part) => (part.type === 'text' ? String(part.text ?? '') : '')).join('');
  const trimmed = text.trimStart();
  // Esc: the turn ended without a reply, and what ran was stopped.
  if (trimmed.startsWith('[Request interrupted')) return { ...turn, runningToolIds: [], awaitingReply: false };
  // A slash command run by the client itself (/model, /cost): no reply comes.
  if (/^<(command-name|local-command-stdout|local-command-caveat|bash-input|bash-stdout)>/.test(trimmed)) return turn;
  return text.length === 0 ? turn : { ...turn, awaitingReply: true };
}

function contentOf(message: TurnLine['message']): readonly Record<string, unknown>[] {
  const content = message?.content;
  if (!Array.isArray(content)) return [];
  return content.map((part) => asRecord(part)).filter((part): part is Record<string, unknown> => part !== null);
}

/** `cache_creation` as Claude Code copies it from the API's answer: which lifetime the written tokens got. */
function cacheMinutesOf(usage: unknown): 5 | 60 | null {
  const creation = asRecord(asRecord(usage)?.cache_creation);
  if (!creation) return null;
  if (Number(creation.ephemeral_1h_input_tokens) > 0) return 60;
  if (Number(creation.ephemeral_5m_input_tokens) > 0) return 5;
  return null; // nothing written this turn (all read from the cache): it says nothing of the lifetime
}
