// Reading what happened out of a transcript: the last request, the last delivery, the files tools
// changed and the commands they ran. Shared by the summary and offline executors.
import type { AgentMessage } from '../session/session-recorder.js';
import type { ChatMessage } from '../session/format.js';

/**
 * Every handoff instruction starts with this, so a later handoff can tell our own instruction turns
 * (R17: they stay in the history) from the user's real requests.
 */
export const HANDOFF_INSTRUCTION_MARK = '[ai-zen handoff]';

/** The text of a message, whether its content is a string or an array of parts. */
export function messageText(message: ChatMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => {
      if (typeof part === 'string') return part;
      if (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string') return (part as { text: string }).text;
      return '';
    })
    .filter((text) => text.length > 0)
    .join('\n');
}

export function isHandoffInstruction(message: ChatMessage): boolean {
  return message.role === 'user' && messageText(message).startsWith(HANDOFF_INSTRUCTION_MARK);
}

/** Index of the user's last real request (not one of our handoff instructions), or -1. */
export function lastUserRequestIndex(messages: readonly AgentMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const entry = messages[index];
    if (entry && !entry.definition && entry.message.role === 'user' && !isHandoffInstruction(entry.message)) return index;
  }
  return -1;
}

export function firstUserRequest(messages: readonly AgentMessage[]): string | null {
  const entry = messages.find(
    (candidate) => !candidate.definition && candidate.message.role === 'user' && !isHandoffInstruction(candidate.message),
  );
  return entry ? messageText(entry.message) : null;
}

export function lastUserRequest(messages: readonly AgentMessage[]): string | null {
  const index = lastUserRequestIndex(messages);
  return index < 0 ? null : messageText(messages[index]!.message);
}

/** The last assistant text that answered a real request (a handoff turn's confirmation does not count). */
export function lastDelivery(messages: readonly AgentMessage[]): string | null {
  let inHandoffTurn = false;
  let found: string | null = null;
  for (const entry of messages) {
    const message = entry.message;
    if (message.role === 'user') inHandoffTurn = isHandoffInstruction(message);
    if (message.role === 'assistant' && !inHandoffTurn) {
      const text = messageText(message).trim();
      if (text.length > 0) found = text;
    }
  }
  return found;
}

export interface FileActivity {
  readonly tool: string;
  readonly path: string;
}

export interface CommandActivity {
  readonly command: string;
  /** null when the result does not say (timed out, refused, or an unknown format). */
  readonly exitCode: number | null;
}

export interface ToolActivity {
  readonly files: readonly FileActivity[];
  readonly commands: readonly CommandActivity[];
}

/** The tools that change files, and the arguments naming the files they change. */
export const FILE_TOOLS: Readonly<Record<string, readonly string[]>> = {
  write: ['path'],
  edit: ['path'],
  batch_edit: ['path'],
  rm: ['path'],
  mkdir: ['path'],
  rename: ['from', 'to'],
  copy: ['from', 'to'],
};

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The exit status of an exec result. Our exec tool ends its result with `[exit code N]` (or
 * `[killed …]`); a result in another shape is searched for its first "exit code N".
 */
export function exitCodeOf(result: string): number | null {
  const trimmed = result.trimEnd();
  const status = /\[([^\[\]\n]*)\]$/.exec(trimmed)?.[1];
  if (status !== undefined) {
    const code = /^exit code (-?\d+)$/.exec(status)?.[1];
    if (code !== undefined) return Number(code);
    if (/^(killed|could not run)/.test(status)) return null;
  }
  const match = /exit(?:ed)?(?:[ _-]?(?:code|status))?\s*[:=]?\s*(?:with\s+)?(-?\d+)/i.exec(result);
  return match?.[1] === undefined ? null : Number(match[1]);
}

/**
 * Files changed and commands run by tools, in order (our own handoff turns excluded). A tool call
 * whose result says it was refused or failed is left out of the files: it changed nothing.
 */
export function toolActivity(messages: readonly AgentMessage[]): ToolActivity {
  const files: FileActivity[] = [];
  const commands: CommandActivity[] = [];
  for (const { name, args, result } of sessionToolCalls(messages)) {
    if (name === 'exec' && typeof args.command === 'string') {
      commands.push({ command: args.command, exitCode: exitCodeOf(result) });
      continue;
    }
    const keys = FILE_TOOLS[name];
    if (!keys || failedResult(result)) continue;
    for (const key of keys) {
      const value = args[key];
      if (typeof value === 'string') files.push({ tool: name, path: value });
    }
  }
  return { files, commands };
}

/**
 * Files the session's tools read and never changed, in the order first read (our own handoff turns
 * excluded). ai-zen's `read` tool and the agents' read tools as their evidence readers name them
 * (`read` with a `path`); a failed read is left out. A successor reads these again ( * the next steps of a real session touch them), so the document names them too.
 */
export function filesReadOnly(messages: readonly AgentMessage[]): string[] {
  // A set keeps the order first read and stays linear in a long session.
  const read = new Set<string>();
  for (const { name, args, result } of sessionToolCalls(messages)) {
    if (name !== 'read' || failedResult(result)) continue;
    const file = args.path;
    if (typeof file === 'string' && file !== '') read.add(file);
  }
  const changed = new Set(toolActivity(messages).files.map((file) => file.path));
  return [...read].filter((file) => !changed.has(file));
}

export const failedResult = (result: string) => /^(refused|error)\b/i.test(result.trim());

/** The session's own tool calls, in order, each with its arguments and its result: our handoff turns are not the session's work. */
export function* sessionToolCalls(
  messages: readonly AgentMessage[],
): Generator<{ name: string; args: Record<string, unknown>; result: string }> {
  const results = new Map<string, string>();
  for (const entry of messages) {
    if (entry.message.role === 'tool' && entry.message.tool_call_id) results.set(entry.message.tool_call_id, messageText(entry.message));
  }
  let inHandoffTurn = false;
  for (const entry of messages) {
    const message = entry.message;
    if (message.role === 'user') inHandoffTurn = isHandoffInstruction(message);
    if (inHandoffTurn || message.role !== 'assistant') continue;
    for (const call of message.tool_calls ?? []) {
      yield { name: call.function.name, args: parseArguments(call.function.arguments), result: results.get(call.id) ?? '' };
    }
  }
}

/** Every real request of the user, in order (definitions and our own handoff instructions left out). */
export function userRequests(messages: readonly AgentMessage[]): string[] {
  return messages
    .filter((entry) => !entry.definition && entry.message.role === 'user' && !isHandoffInstruction(entry.message))
    .map((entry) => messageText(entry.message))
    .filter((text) => text.trim().length > 0);
}
