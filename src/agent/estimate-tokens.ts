// A rough token count, for deciding before a request is sent (R14). The real count comes back
// in `usage`; between two responses we add about one token per four characters.
import type { ChatMessage, Usage } from '../session/format.js';
import type { AgentMessage } from './types.js';

export const CHARS_PER_TOKEN = 4;

export function estimateMessageTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) chars += jsonLength(message);
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/**
 * About the length of `JSON.stringify(value)`. The native call recurses and throws on a value
 * nested thousands deep (issue 11 §10), so such a value is measured by an explicit walk instead.
 */
function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    let length = 0;
    const pending: unknown[] = [value];
    while (pending.length > 0) {
      const item = pending.pop();
      if (typeof item === 'string') length += item.length + 2;
      else if (Array.isArray(item)) {
        length += 2 + item.length;
        for (const element of item) pending.push(element);
      } else if (typeof item === 'object' && item !== null) {
        const entries = Object.entries(item);
        length += 2 + entries.length;
        for (const [key, element] of entries) {
          length += key.length + 3;
          pending.push(element);
        }
      } else length += String(item).length;
    }
    return length;
  }
}

/**
 * The next prompt's size: the last measured prompt plus what was added since. Without a measure
 * (a new session, or right after a migration cleared it, R25) every message is estimated.
 */
export function estimatePromptTokens(view: { messages: readonly AgentMessage[]; lastUsage: Usage | null; measuredMessageCount?: number }): number {
  const all = view.messages.map((entry) => entry.message);
  if (view.lastUsage === null) return estimateMessageTokens(all);
  const measured = view.measuredMessageCount ?? 0;
  const since = measured <= all.length ? all.slice(measured) : all;
  return view.lastUsage.prompt_tokens + estimateMessageTokens(since);
}
