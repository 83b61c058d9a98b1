// Session file, version 1 (SPEC "Contracts"): one JSON object per line, appended.
// These schemas are the contract other programs (the daemon, third-party readers) rely on.
import { z } from 'zod';

/** A session id is data, never a path: letters, digits, `-` and `_` only. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{7,127}$/;
export const SessionId = z.string().regex(SESSION_ID_PATTERN, 'not a valid session id');

export const ToolCall = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCall>;

/** An OpenAI chat message as stored. Unknown fields are kept (forward compatible). */
export const ChatMessage = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.null(), z.array(z.unknown())]).optional(),
  tool_calls: z.array(ToolCall).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

export const Usage = z.looseObject({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof Usage>;

export const HeaderLine = z.looseObject({
  type: z.literal('session'),
  v: z.literal(1),
  id: SessionId,
  createdAt: z.string(),
  cwd: z.string(),
  model: z.string(),
  maxContextTokens: z.number().int().positive(),
  previousId: SessionId.nullable(),
});
export type HeaderLine = z.infer<typeof HeaderLine>;

export const MessageLine = z.looseObject({
  type: z.literal('message'),
  message: ChatMessage,
  /** Definition messages (system prompt, project rules) survive prune (R24). */
  definition: z.literal(true).optional(),
});
export type MessageLine = z.infer<typeof MessageLine>;

export const UsageLine = z.looseObject({
  type: z.literal('usage'),
  usage: Usage,
});
export type UsageLine = z.infer<typeof UsageLine>;

/** `fork`: a headless fork of an idle Claude Code session wrote it on the warm cache. */
export const ExecutorName = z.enum(['self', 'fork', 'summary', 'offline']);
export type ExecutorName = z.infer<typeof ExecutorName>;
/** What a person or a request may choose: the fork writes only an idle session's document, by the daemon's own choice. */
export const ChosenExecutor = ExecutorName.exclude(['fork']);
export type ChosenExecutor = z.infer<typeof ChosenExecutor>;

export const HandoffCost = z.object({
  requests: z.number().int().nonnegative(),
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
});
export type HandoffCost = z.infer<typeof HandoffCost>;

/**
 * What the final document still fails of the fidelity checks (F1–F4), one sentence per problem;
 * every list empty: the document passed. Absent in lines written before the checks existed; a value
 * of another shape is dropped, never the line (readers skip nothing).
 */
export const HandoffChecks = z.looseObject({
  sections: z.array(z.string()),
  facts: z.array(z.string()),
  files: z.array(z.string()),
  commands: z.array(z.string()),
});
export type HandoffChecks = z.infer<typeof HandoffChecks>;

/** Written after a handoff document was verified (R22, R28–R30: what it cost). */
export const HandoffLine = z.looseObject({
  type: z.literal('handoff'),
  at: z.string(),
  /** Project-relative path of the document, e.g. `.ai-zen/handoffs/20261202-105418-abcd1234.md`. */
  path: z.string(),
  executor: ExecutorName,
  mode: z.enum(['handoff', 'migrate']),
  /** Executors tried before the one that wrote it (R11, one-way), with why each failed. */
  downgrades: z.array(z.object({ from: ExecutorName, reason: z.string() })),
  cost: HandoffCost,
  /** S1: the next goal the document was written towards, when one was named. */
  goal: z.string().optional(),
  /** F1–F4: what the document still fails (optional: older lines have none). */
  checks: HandoffChecks.optional().catch(undefined),
  /**
   * T1: sha256 (hex) of the document as ai-zen sealed it — verified, scanned, redacted. The daemon
   * commits only a document that still has it. Optional to read: lines written before it existed.
   */
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** T5: how many secrets were redacted from the document before it was sealed. */
  redactions: z.number().int().nonnegative().optional(),
});
export type HandoffLine = z.infer<typeof HandoffLine>;

/** The last line of a migrated session: it is closed, and its history goes on in `newId` (R23–R25). */
export const MigratedLine = z.looseObject({
  type: z.literal('migrated'),
  at: z.string(),
  newId: SessionId,
  path: z.string(),
});
export type MigratedLine = z.infer<typeof MigratedLine>;

/**
 * R19: the person pressed Esc at the chat's overflow selector, `promptTokens` over the window. The
 * daemon then leaves this crossing alone (no migration when the owner leaves, nor on retry) until
 * usage drops to or below the window; the next crossing migrates as usual.
 */
export const SkipLine = z.looseObject({
  type: z.literal('skip'),
  at: z.string(),
  promptTokens: z.number().int().nonnegative(),
});
export type SkipLine = z.infer<typeof SkipLine>;

/**
 * `ai-zen migrate --undo` reopened this migrated session: it is the live one again, its
 * history whole; `from` is the successor it had migrated to, kept but no longer the latest. Written
 * after the `migrated` line it cancels; read while the session is over its window, it declines that
 * crossing as a `skip` does, so the daemon does not migrate straight back.
 */
export const ReopenedLine = z.looseObject({
  type: z.literal('reopened'),
  at: z.string(),
  from: SessionId,
});
export type ReopenedLine = z.infer<typeof ReopenedLine>;

export const SessionLine = z.discriminatedUnion('type', [
  HeaderLine,
  MessageLine,
  UsageLine,
  HandoffLine,
  MigratedLine,
  SkipLine,
  ReopenedLine,
]);
export type SessionLine = z.infer<typeof SessionLine>;
