// The daemon's IPC protocol, version 1: a public contract (README). On the wire each message is
// one UTF-8 JSON object followed by a form feed ('\f', node-ipc's delimiter; JSON.stringify never
// emits a raw one). Requests carry an id that the reply repeats; events are pushed to subscribers.
import { z } from 'zod';
import { WATCHED_AGENTS } from '../config/agent-names.js';
import { EventSchemas, eventSchema, type AnyEvent, type EventName } from '../events.js';
import { ChosenExecutor } from '../session/format.js';

/** The longest goal a handoff may name (S1): long enough for a paragraph; a goal is a direction, not a second document. */
export const MAX_GOAL_CHARACTERS = 2000;

export const PROTOCOL_VERSION = 1;
export const DELIMITER = '\f';
/** A request larger than this is refused (and its bytes discarded) without ever being buffered whole. */
export const MAX_REQUEST_BYTES = 1024 * 1024;
/** Replies can be large (status of thousands of sessions); the client still caps what it buffers. */
export const MAX_REPLY_BYTES = 64 * 1024 * 1024;

export const RequestType = z.enum([
  'status',
  'sessions',
  'handoffs',
  'facts',
  'handoff',
  'migrate',
  'stop',
  'subscribe',
  'agent-hook',
  'agent-hook-input',
  'transcript',
  'statusline',
]);
export type RequestType = z.infer<typeof RequestType>;

/** What names a session on a command line: an id or a prefix of one (a whole id is SessionId). Data, never a path. */
export const SessionRef = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, 'not a session id or prefix');

const NoParams = z.object({}).strict().optional();
const HandoffParams = z
  .object({
    /**
     * A session: its whole id, or a unique prefix of the id or of the short id `status` prints, of
     * any agent's session; the daemon picks the latest ai-zen session when absent.
     */
    session: SessionRef.optional(),
    executor: ChosenExecutor.optional(),
    /** S1: the next goal the document is written towards. */
    goal: z.string().min(1).max(MAX_GOAL_CHARACTERS).optional(),
  })
  .strict()
  .optional();

/** The params each request type accepts; handlers receive them parsed. */
export const RequestParams = {
  /** `all`: the sessions handed off too, each with its state. */
  status: z.object({ all: z.boolean().optional() }).strict().optional(),
  sessions: NoParams,
  handoffs: NoParams,
  facts: z.object({ refresh: z.boolean().optional() }).strict().optional(),
  handoff: HandoffParams,
  migrate: HandoffParams,
  stop: NoParams,
  subscribe: NoParams,
  /** X3: another agent's hook (`ai-zen-daemon hook <agent> <event>`) asks what to answer. */
  'agent-hook': z
    .object({
      agent: z.enum(WATCHED_AGENTS),
      event: z.enum(['Stop', 'PreCompact', 'SessionStart', 'UserPromptSubmit']),
      transcriptPath: z.string().min(1).max(4096),
      sessionId: z.string().max(256).optional(),
      stopHookActive: z.boolean().optional(),
      trigger: z.string().max(64).optional(),
      source: z.string().max(64).optional(),
      /** The hook says a script runs the session (pi -p), where the transcript cannot. */
      scripted: z.boolean().optional(),
      /** The start of the reply the agent says its turn ended on (Claude's last_assistant_message): the Stop hook reads the transcript until it has it. */
      lastReply: z.string().max(512).optional(),
      /** The agent process the hook ran under: the same before and after `/clear`, so the fresh session is known as the successor. */
      agentPid: z.number().int().positive().optional(),
    })
    .strict(),
  /**
   * The same hook as the agent sent it (its stdin JSON, untouched): the daemon reads it as that agent's
   * hooks do and answers the output shaped for the agent. The lean hook entry sends this, so it loads
   * no agent's code and no zod: only a socket.
   */
  'agent-hook-input': z
    .object({
      /** The word of `ai-zen-daemon hook <agent> <event>`: claude, codex, gemini, … */
      agent: z.string().min(1).max(32),
      event: z.enum(['Stop', 'PreCompact', 'SessionStart', 'UserPromptSubmit']),
      input: z.record(z.string(), z.unknown()),
      agentPid: z.number().int().positive().optional(),
    })
    .strict(),
  /** The last turns a person saw of any agent's session, by its id or a prefix of it; bounded in bytes. */
  transcript: z
    .object({
      session: z
        .string()
        .min(1)
        .max(128)
        .regex(/^[A-Za-z0-9_-]+$/),
      last: z.number().int().min(1).max(200).optional(),
    })
    .strict(),
  /**
   * Claude Code's statusline (`ai-zen-daemon statusline`) passes its exact reading
   * of a session's window and asks for the thresholds and the last document to show beside it.
   */
  statusline: z
    .object({
      agent: z.literal('claude-code'),
      sessionId: z.string().min(1).max(256).optional(),
      transcriptPath: z.string().min(1).max(4096).optional(),
      model: z.string().min(1).max(256).optional(),
      /** Claude's own `context_window.used_percentage`, or the same computed from its token counts. */
      usedPercent: z.number().min(0).max(10_000).optional(),
      contextWindowSize: z.number().int().positive().optional(),
      /** The prompt's tokens (input + cache creation + cache read) of the latest request. */
      promptTokens: z.number().int().min(0).optional(),
    })
    .strict(),
} as const satisfies Record<RequestType, z.ZodType>;
export type RequestParams<T extends RequestType> = z.infer<(typeof RequestParams)[T]>;

export const RequestId = z.string().min(1).max(128);

export const Request = z.object({
  v: z.literal(PROTOCOL_VERSION),
  id: RequestId,
  type: RequestType,
  params: z.unknown().optional(),
});
export type Request = z.infer<typeof Request>;

/** Why a request was refused. Handler failures carry the AiZenError code of the failure instead. */
export const ProtocolErrorCode = z.enum([
  'bad-json', // not JSON, or not an object
  'too-large', // over MAX_REQUEST_BYTES
  'unsupported-version', // v is not PROTOCOL_VERSION
  'unknown-type', // type is not a RequestType
  'bad-request', // envelope or params do not match the schema
  'not-supported', // a known type this server has no handler for
  'internal', // a handler failed with an unexpected error
]);
export type ProtocolErrorCode = z.infer<typeof ProtocolErrorCode>;

export const ErrorBody = z.object({ code: z.string().min(1), message: z.string() });

export const Reply = z.discriminatedUnion('ok', [
  z.object({ v: z.literal(PROTOCOL_VERSION), id: RequestId.nullable(), ok: z.literal(true), result: z.unknown() }),
  z.object({ v: z.literal(PROTOCOL_VERSION), id: RequestId.nullable(), ok: z.literal(false), error: ErrorBody }),
]);
export type Reply = z.infer<typeof Reply>;

const eventNames = Object.keys(EventSchemas) as [EventName, ...EventName[]];

export const EventMessage = z.object({
  v: z.literal(PROTOCOL_VERSION),
  event: z.object({ name: z.enum(eventNames), payload: z.unknown() }),
});

/** Validates an event against the catalogue (src/events.ts); null when it does not match. */
export function parseEvent(value: unknown): AnyEvent | null {
  // The envelope (what EventMessage says) is checked by hand and the payload by its schema: one
  // schema pass per event, not two, on the path of every event a subscriber waits for (bench g).
  if (!isObject(value) || value.v !== PROTOCOL_VERSION || !isObject(value.event)) return null;
  const { name, payload } = value.event;
  if (typeof name !== 'string' || !Object.hasOwn(EventSchemas, name)) return null;
  const parsed = eventSchema(name as EventName).safeParse(payload);
  return parsed.success ? ({ name, payload: parsed.data } as AnyEvent) : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function encodeMessage(message: unknown): string {
  return JSON.stringify(message) + DELIMITER;
}

export function errorReply(id: string | null, code: string, message: string): Reply {
  return { v: PROTOCOL_VERSION, id, ok: false, error: { code, message } };
}
