// Session lines as ai-zen writes them: checked against the v1 schemas before a byte is written
// (zod at the boundary), then one JSON object per line.
import type { z } from 'zod';
import { AiZenError } from '../errors.js';
import { type ChatMessage, MessageLine, type SessionLine } from './format.js';

export function serializeLine(line: SessionLine): string {
  return `${JSON.stringify(line)}\n`;
}

/** A line that does not match v1 is refused with one clear line, never written. */
export function validated<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  throw new AiZenError('session', `refusing to record an invalid ${what}${where}: ${issue?.message ?? 'does not match the schema'}`);
}

/** A `message` line; a definition message (system prompt, project rules) is kept by prune (R24). */
export function messageLine(message: ChatMessage, definition: boolean): MessageLine {
  return validated(MessageLine, definition ? { type: 'message', message, definition: true } : { type: 'message', message }, 'message');
}
