// One Gemini CLI session line folded into the session state (X3), pure. The file
// (checked with 0.61) is a first metadata line (`sessionId`, `projectHash`, `startTime`, `kind`),
// then message records (`id`, `type` user | gemini | info | error | warning, `content`, and on a
// reply `tokens` and `model`), `$set` patches of the conversation (`messages` replaces them all,
// `lastUpdated`, …) and `$rewindTo` (messages dropped from an id on). A message is written again
// under the same id when it changes (its tool calls and their results): it counts once. Context is
// measured as the client measures it — the "% used" it shows is the last reply's promptTokenCount
// over the model's window — and that count is the reply's `tokens.input` (cached tokens included).
// The window is the client's tokenLimit(model) — 1,048,576 for every Gemini model, 256k for Gemma 4
// (0.61) — which is the table's (config/agent-models.ts), over which the user's `agents.gemini`
// settings win. It compresses its history at 50% of that window by default
// (`model.compressionThreshold`); the daemon hands off a margin below (session-source.ts).
import path from 'node:path';
import { z } from 'zod';
import { compiledOnFirstUse } from '../../../compiled-schema.js';
import type { AgentWindowSettings } from '../../../config/agent-models.js';
import { HANDOFF_INSTRUCTION_MARK } from '../../../handoff/transcript.js';
import type { RawLine } from '../../watching/incremental-reader.js';
import { parseJsonLine } from '../../watching/line-fold-reader.js';
import type { SessionState } from '../../watching/session-source.js';
import { asRecord } from '../kit/json-record.js';
import { TokenCount, detailsOf, emptyFoldState, measureOf, observeReading } from '../kit/observations.js';
import { idPartOfName } from './gemini-paths.js';
import { userTexts } from './gemini-user-text.js';

const Tokens = compiledOnFirstUse(z.looseObject({ input: TokenCount, output: TokenCount.optional(), total: TokenCount.optional() }));

const Message = compiledOnFirstUse(
  z.looseObject({
    id: z.string().max(200),
    type: z.string().max(40),
    timestamp: z.string().max(60).optional(),
    model: z.string().max(200).optional(),
    content: z.unknown().optional(),
    tokens: z.unknown().optional(),
  }),
);
type Message = z.infer<ReturnType<typeof Message>>;

export type GeminiFoldOptions = AgentWindowSettings;

/** What the fold keeps besides the shared fields (in SessionState.details). */
export type GeminiDetails = {
  readonly lastMessageId: string | null;
  /** Readings seen (replies with tokens). */
  readonly readings: number;
  /** The metadata line's `projectHash` (the client's hash of the project root). */
  readonly projectHash: string | null;
};

export function emptyGeminiState(file: string, options: GeminiFoldOptions): SessionState {
  const details: GeminiDetails = { lastMessageId: null, readings: 0, projectHash: null };
  // Until the metadata line names it whole: the part the file name carries.
  // cwd: set by the source from the project folder's `.project_root` (the transcript never names it).
  const sessionId = idPartOfName(file) || path.basename(file, '.jsonl');
  return emptyFoldState('gemini', file, sessionId, measureOf('gemini', null, options), details);
}

const geminiDetails = detailsOf<GeminiDetails>;

export function foldGeminiLine(state: SessionState, raw: RawLine, options: GeminiFoldOptions): SessionState | string {
  const value = parseJsonLine(raw.text);
  if (value === undefined) return 'not JSON';
  const line = asRecord(value);
  if (!line) return 'not a Gemini CLI session line';
  if (typeof line.sessionId === 'string' && typeof line.projectHash === 'string') return withMetadata(state, line);
  if (typeof line.$rewindTo === 'string') return state;
  const patch = asRecord(line.$set);
  if (patch) return Array.isArray(patch.messages) ? withMessages(state, patch.messages, options) : state;
  if (typeof line.id !== 'string') return state;
  const parsed = Message().safeParse(line);
  if (!parsed.success) return `a message Gemini CLI would not write (${parsed.error.issues[0]?.path.join('.') ?? '?'})`;
  return withMessage(state, parsed.data, options);
}

/** T2: a session's identity is its file name; the metadata's id must be the one the name begins. */
function withMetadata(state: SessionState, line: Record<string, unknown>): SessionState {
  const id = String(line.sessionId);
  const named = idPartOfName(state.file);
  if (named === '' || !id.startsWith(named) || id.length > 200)
    return { ...state, refusedBecause: `its metadata names session ${id.slice(0, 80)}, not the file name's ${named}` };
  const startedAt = typeof line.startTime === 'string' ? line.startTime.slice(0, 60) : state.startedAt;
  const details: GeminiDetails = { ...geminiDetails(state), projectHash: String(line.projectHash).slice(0, 128) };
  return { ...state, sessionId: id, startedAt: state.startedAt ?? startedAt ?? null, details };
}

/** `$set.messages`: the conversation as a whole (the start, a resume): counted and measured from scratch. */
function withMessages(state: SessionState, messages: readonly unknown[], options: GeminiFoldOptions): SessionState {
  let next: SessionState = { ...state, messageCount: 0, details: { ...geminiDetails(state), lastMessageId: null } };
  for (const entry of messages) {
    const parsed = Message().safeParse(entry);
    if (!parsed.success) continue;
    const folded = withMessage(next, parsed.data, options);
    if (typeof folded !== 'string') next = folded;
  }
  return next;
}

function withMessage(state: SessionState, message: Message, options: GeminiFoldOptions): SessionState | string {
  const details = geminiDetails(state);
  const again = message.id === details.lastMessageId;
  let next: SessionState = state;
  if (next.startedAt === null && message.timestamp) next = { ...next, startedAt: message.timestamp };
  if (!again && (message.type === 'gemini' || (message.type === 'user' && hasUserText(message.content))))
    next = { ...next, messageCount: next.messageCount + 1 };
  next = { ...next, details: { ...geminiDetails(next), lastMessageId: message.id } };
  if (message.type !== 'gemini' || message.tokens === undefined) return next;
  const tokens = Tokens().safeParse(message.tokens);
  if (!tokens.success) return `tokens Gemini CLI would not write (${tokens.error.issues[0]?.path.join('.') ?? '?'})`;
  const reading = tokens.data.input;
  const output = tokens.data.output ?? 0;
  return observeReading(next, {
    ...measureOf('gemini', message.model ?? next.model, options),
    promptTokens: reading,
    outputTokens: output,
    totalTokens: tokens.data.total ?? reading + output,
    details: { ...geminiDetails(next), readings: geminiDetails(next).readings + (again ? 0 : 1) },
  });
}

/** A user record with the person's words in it (not only function responses, not the client's `<session_context>`). */
function hasUserText(content: unknown): boolean {
  return userWords(content) !== '';
}

/** The person's words in a user record's content: less the client's blocks and ai-zen's own hook reasons (a block's reason is the next prompt). */
export function userWords(content: unknown): string {
  return userTexts(content)
    .filter((text) => !text.startsWith(HANDOFF_INSTRUCTION_MARK))
    .join('\n');
}
