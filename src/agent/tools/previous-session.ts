// `previous_session` (S4): a migrated session's agent reaches what the handoff document left out.
// It searches the predecessor chain (previousId → previousId …) for a text or a regular expression
// and returns the matching messages with their tool calls and results, or reads one message whole
// by its index. Read-only by construction: it only ever reads session files through the store, and
// only those of its own chain. Output is bounded, with a note saying what was left out.
// Regular expressions run on RE2 (re2js: linear time, no backtracking), and every search runs off
// the agent's thread within a time budget (bounded-search.ts), so no pattern can hang it.
import { z } from 'zod';
import type { ChatMessage, HeaderLine, SessionLine } from '../../session/format.js';
import { contentText } from '../agent.js';
import { boundedSearch } from './bounded-search.js';
import { defineTool, toolError, toolOk } from './tool-result.js';
import { namesSession, shortId } from '../../short-id.js';

/** What the tool reads sessions through (the SessionStore has it); nothing that writes. */
export interface SessionReader {
  read(id: string): Promise<{ readonly header: HeaderLine; readonly lines: readonly SessionLine[] }>;
}

export interface PreviousSessionOptions {
  readonly sessions: SessionReader;
  /** The live session's predecessor, asked at each call (a migration changes it, R27). */
  readonly previousId: () => string | null;
  /** Characters of one answer (default 12,000). */
  readonly outputLimit?: number;
  /** How long one search may take before it stops with what it found (default 5 s). */
  readonly searchBudgetMs?: number;
}

export const PREVIOUS_SESSION_TOOL = 'previous_session';
const DEFAULT_OUTPUT_LIMIT = 12_000;
/** A hit shows this much of each message; `read` shows it whole. */
const HIT_MESSAGE_LIMIT = 1_500;
const HIT_RESULT_LIMIT = 800;
const MAX_PATTERN_LENGTH = 500;
const DEFAULT_SEARCH_BUDGET_MS = 5_000;
/**
 * RE2 instructions of a compiled pattern: its search costs this much per character. An ordinary
 * pattern is well under 200; `[^\n]{999}` is ~1,000; the issue's 49 of those, ~49,000.
 */
const MAX_PROGRAM_SIZE = 2_000;
/** A chain longer than this is a loop or damage, not a history. */
const MAX_CHAIN = 200;

const schema = z.strictObject({
  search: z.string().min(1).max(MAX_PATTERN_LENGTH).optional().describe('Text to find (case-insensitive) in the earlier sessions'),
  regex: z.boolean().optional().describe('Treat search as a regular expression (RE2 syntax)'),
  read: z.number().int().nonnegative().optional().describe('Read the message with this index whole (indexes come from search results)'),
  session: z
    .string()
    .optional()
    .describe('With read: which earlier session (id or its first 8 characters); default the one just before this'),
  offset: z.number().int().nonnegative().optional().describe('With read: the first character to show of a long message'),
});

interface ChainSession {
  readonly id: string;
  readonly createdAt: string;
  readonly messages: readonly ChatMessage[];
}

function callsText(message: ChatMessage): string {
  return (message.tool_calls ?? []).map((call) => `→ ${call.function.name}(${call.function.arguments})`).join('\n');
}

/** What is searched and shown of a message: its text, and its tool calls. */
function messageText(message: ChatMessage): string {
  return [contentText(message.content), callsText(message)].filter((part) => part !== '').join('\n');
}

function cut(text: string, limit: number, hint: string): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}\n[… ${text.length - limit} more characters; ${hint}]`;
}

/**
 * A hit is shown as its exchange: an assistant message with its tool calls and their results; a
 * tool result with the call that made it. Returns the index the exchange is shown under.
 */
function exchangeIndex(messages: readonly ChatMessage[], index: number): number {
  const message = messages[index]!;
  if (message.role !== 'tool' || message.tool_call_id === undefined) return index;
  for (let at = index - 1; at >= 0; at -= 1) {
    if (messages[at]!.role === 'assistant' && (messages[at]!.tool_calls ?? []).some((call) => call.id === message.tool_call_id)) return at;
  }
  return index;
}

function renderExchange(session: ChainSession, index: number, limits: { message: number; result: number }): string {
  const messages = session.messages;
  const message = messages[index]!;
  const hint = `read it whole with {"read": ${index}, "session": "${shortId(session.id)}"}`;
  const lines = [
    `--- session ${shortId(session.id)} · message ${index} · ${message.role} ---`,
    cut(messageText(message), limits.message, hint),
  ];
  for (const call of message.tool_calls ?? []) {
    const resultAt = messages.findIndex((candidate, at) => at > index && candidate.role === 'tool' && candidate.tool_call_id === call.id);
    if (resultAt < 0) continue;
    const resultHint = `read it whole with {"read": ${resultAt}, "session": "${shortId(session.id)}"}`;
    lines.push(
      `← ${call.function.name} result (message ${resultAt}):`,
      cut(contentText(messages[resultAt]!.content), limits.result, resultHint),
    );
  }
  return lines.join('\n');
}

export function createPreviousSessionTool(options: PreviousSessionOptions) {
  const outputLimit = options.outputLimit ?? DEFAULT_OUTPUT_LIMIT;

  async function chain(): Promise<ChainSession[] | { error: string }> {
    const found: ChainSession[] = [];
    const seen = new Set<string>();
    let id = options.previousId();
    if (id === null) return { error: 'this session has no predecessor: it did not start from a handoff' };
    while (id !== null && !seen.has(id) && found.length < MAX_CHAIN) {
      seen.add(id);
      let content;
      try {
        content = await options.sessions.read(id);
      } catch (error) {
        // A predecessor that is gone or damaged ends the chain there; what came before it is out of reach.
        if (found.length === 0)
          return { error: `the previous session ${id} cannot be read: ${error instanceof Error ? error.message : String(error)}` };
        break;
      }
      const messages = content.lines.flatMap((line) => (line.type === 'message' ? [line.message] : []));
      found.push({ id, createdAt: content.header.createdAt, messages });
      id = content.header.previousId;
    }
    return found;
  }

  return defineTool({
    name: PREVIOUS_SESSION_TOOL,
    description:
      'Search or read the earlier sessions this one continues from (the chain of handoffs), read-only. ' +
      'Give `search` (text, or a regular expression with `regex: true`) to get the matching messages with their tool calls and results, newest session first; ' +
      'or `read` with a message index (and `session`) to read one message whole.',
    schema,
    async run(args, context) {
      if ((args.search === undefined) === (args.read === undefined)) return toolError('give either search or read (one of them)');
      const sessions = await chain();
      if ('error' in sessions) return toolError(sessions.error, `${PREVIOUS_SESSION_TOOL}: ${sessions.error}`);

      if (args.read !== undefined) {
        const wanted = args.session;
        const session =
          wanted === undefined
            ? sessions[0]!
            : sessions.find((candidate) => candidate.id === wanted || (wanted.length >= 8 && namesSession(wanted, candidate.id)));
        if (!session) {
          const ids = sessions.map((candidate) => shortId(candidate.id)).join(', ');
          return toolError(`session ${wanted} is not one of this session's predecessors (${ids})`);
        }
        const message = session.messages[args.read];
        if (!message)
          return toolError(
            `session ${shortId(session.id)} has messages 0 to ${session.messages.length - 1}; there is no message ${args.read}`,
          );
        const whole = renderExchange(session, args.read, { message: Number.MAX_SAFE_INTEGER, result: Number.MAX_SAFE_INTEGER });
        const offset = args.offset ?? 0;
        const shown = whole.slice(offset, offset + outputLimit);
        const rest = whole.length - offset - shown.length;
        const note =
          rest > 0
            ? `\n[truncated: ${rest} more characters; read on with {"read": ${args.read}, "session": "${shortId(session.id)}", "offset": ${offset + shown.length}}]`
            : '';
        return toolOk(
          `${shown}${note}`,
          `${PREVIOUS_SESSION_TOOL} read ${shortId(session.id)} #${args.read}${rest > 0 ? ' (truncated)' : ''}`,
        );
      }

      const found = await boundedSearch(
        sessions.map((session) => session.messages.map(messageText)),
        { search: args.search!, regex: args.regex === true },
        {
          budgetMs: options.searchBudgetMs ?? DEFAULT_SEARCH_BUDGET_MS,
          maxProgramSize: MAX_PROGRAM_SIZE,
          ...(context.signal ? { signal: context.signal } : {}),
        },
      );
      if (!found.ok) return toolError(found.error);
      const hits: { session: ChainSession; index: number }[] = [];
      const shown = sessions.map(() => new Set<number>());
      for (const [list, index] of found.hits) {
        const session = sessions[list]!;
        const at = exchangeIndex(session.messages, index);
        if (shown[list]!.has(at)) continue;
        shown[list]!.add(at);
        hits.push({ session, index: at });
      }
      const total = sessions.reduce((sum, session) => sum + session.messages.length, 0);
      const stopped = found.stopped
        ? `[search stopped after ${found.stopped.afterMs} ms (${found.stopped.reason === 'time' ? 'its time budget' : 'interrupted'}): searched ${found.searched} of ${total} messages; partial results — narrow the pattern or search for plain text]`
        : null;
      const scope = `${sessions.length} earlier session${sessions.length === 1 ? '' : 's'} (${sessions.map((session) => shortId(session.id)).join(' ← ')})`;
      if (hits.length === 0)
        return toolOk(
          [`no message matches ${JSON.stringify(args.search)} in ${scope}`, ...(stopped ? [stopped] : [])].join('\n'),
          `${PREVIOUS_SESSION_TOOL} ${JSON.stringify(args.search)}: no match${stopped ? ' (search stopped, partial)' : ''}`,
        );
      const parts: string[] = [`${hits.length} matching message${hits.length === 1 ? '' : 's'} in ${scope}:`];
      let used = parts[0]!.length;
      let included = 0;
      for (const hit of hits) {
        const text = renderExchange(hit.session, hit.index, { message: HIT_MESSAGE_LIMIT, result: HIT_RESULT_LIMIT });
        if (used + text.length > outputLimit && included > 0) break;
        parts.push(text.slice(0, outputLimit - used));
        used += text.length;
        included += 1;
      }
      if (stopped) parts.push(stopped);
      if (included < hits.length)
        parts.push(
          `[truncated: showed ${included} of ${hits.length} matching messages; narrow the search, or read one whole with {"read": index, "session": id}]`,
        );
      return toolOk(
        parts.join('\n'),
        `${PREVIOUS_SESSION_TOOL} ${JSON.stringify(args.search)}: ${hits.length} match${hits.length === 1 ? '' : 'es'}${included < hits.length ? ` (${included} shown)` : ''}${stopped ? ' (search stopped, partial)' : ''}`,
      );
    },
  });
}
