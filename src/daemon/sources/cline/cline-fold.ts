// The fold of a Cline CLI conversation (`<id>.messages.json`) into the session state, purely. Cline
// writes the file whole as `JSON.stringify(…, null, 2)` after each message, so the reader reads it
// again from the start each time, one line at a time (kit/agent-reader.ts), and the fold reads the
// few lines it needs by their indentation — a string value never spans lines, so a line that is a
// key at a message's own depth is always Cline's key: a message's start (`    {`), its `"role"`, and
// the `"modelInfo"` and `"metrics"` objects of its replies. The context is measured as Cline measures
// it to decide when to compact: the last request's `inputTokens` (cached input included).
import type { SessionState } from '../../watching/session-source.js';
import type { AgentLineFold, MeasureBy } from '../kit/agent-reader.js';
import { detailsOf, observeMeasure, observeReading, observeStart } from '../kit/observations.js';
import { clineSessionIdOf } from './cline-paths.js';

/** The message being read, as far as it has been; what the fold keeps in SessionState.details. */
export type ClineDetails = {
  /** Inside `"messages"` and inside one message: its role so far, the object of its own being read. */
  readonly message: {
    readonly role: string | null;
    readonly ts: number | null;
    readonly block: string | null;
    readonly model: string | null;
    readonly metrics: Readonly<Record<string, number>>;
  } | null;
};

const MESSAGE_START = /^ {4}\{$/;
const MESSAGE_END = /^ {4}\},?$/;
const MESSAGE_KEY = /^ {6}"(role|ts)": ("[a-z]+"|\d+),?$/;
const BLOCK_START = /^ {6}"([A-Za-z]+)": \{$/;
const BLOCK_END = /^ {6}\},?$/;
const BLOCK_KEY = /^ {8}"([A-Za-z]+)": ("(?:[^"\\]|\\.)*"|\d+),?$/;
const TOKEN_KEYS = new Set(['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens']);

export const clineMessagesFold: AgentLineFold = {
  agent: 'cline',
  details: { message: null } satisfies ClineDetails,
  sessionId: clineSessionIdOf,
  fold: foldClineLine,
};

export function foldClineLine(state: SessionState, text: string, measure: MeasureBy): SessionState | string {
  const { message } = detailsOf<ClineDetails>(state);
  if (MESSAGE_START.test(text)) return withMessage(state, { role: null, ts: null, block: null, model: null, metrics: {} });
  if (message === null) return state;
  if (MESSAGE_END.test(text)) return endOfMessage(withMessage(state, null), message, measure);
  const key = MESSAGE_KEY.exec(text);
  if (key)
    return withMessage(state, key[1] === 'role' ? { ...message, role: JSON.parse(key[2]!) as string } : { ...message, ts: Number(key[2]) });
  const block = BLOCK_START.exec(text);
  if (block) return withMessage(state, { ...message, block: block[1]! });
  if (BLOCK_END.test(text)) return withMessage(state, { ...message, block: null });
  const field = BLOCK_KEY.exec(text);
  if (!field) return state;
  const [, name, value] = field as unknown as [string, string, string];
  if (message.block === 'modelInfo' && name === 'id' && value.startsWith('"'))
    return withMessage(state, { ...message, model: JSON.parse(value) as string });
  if (message.block === 'metrics' && TOKEN_KEYS.has(name) && !value.startsWith('"'))
    return withMessage(state, { ...message, metrics: { ...message.metrics, [name]: Number(value) } });
  return state;
}

function withMessage(state: SessionState, message: ClineDetails['message']): SessionState {
  return { ...state, details: { ...state.details, message } satisfies ClineDetails };
}

/** A whole message read: the session's start, and each reply a reading of the context. */
function endOfMessage(state: SessionState, message: NonNullable<ClineDetails['message']>, measure: MeasureBy): SessionState {
  const started =
    message.ts !== null && state.startedAt == null ? observeStart(state, new Date(message.ts).toISOString(), null, null) : state;
  if (message.role !== 'assistant') return started;
  const counted = { ...started, messageCount: started.messageCount + 1 };
  const input = message.metrics.inputTokens;
  const model = message.model ?? counted.model;
  if (input === undefined || !Number.isSafeInteger(input)) return observeMeasure(counted, measure(model, null));
  const output = message.metrics.outputTokens ?? 0;
  return observeReading(counted, { ...measure(model, null), promptTokens: input, outputTokens: output, details: counted.details });
}
