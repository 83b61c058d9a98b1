// The one token estimator: a rough count, for deciding before a request is sent (R14) and for
// fitting a history into a budget (R10). The real count comes back in `usage`. Conservative on
// purpose: ~1 token per 3 UTF-8 bytes over-counts English and matches CJK.
import type { ChatMessage, Usage } from '../session/format.js';
import type { AgentMessage } from '../session/session-recorder.js';

const BYTES_PER_TOKEN = 3;

export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / BYTES_PER_TOKEN);
}

export function estimateMessageTokens(messages: readonly ChatMessage[]): number {
  let bytes = 0;
  for (const message of messages) bytes += jsonBytes(message);
  return Math.ceil(bytes / BYTES_PER_TOKEN);
}

/**
 * About the UTF-8 length of `JSON.stringify(value)`. The native call recurses and throws on a value
 * nested thousands deep, so such a value is measured by an explicit walk instead.
 */
function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  } catch {
    let length = 0;
    const pending: unknown[] = [value];
    while (pending.length > 0) {
      const item = pending.pop();
      if (typeof item === 'string') length += Buffer.byteLength(item, 'utf8') + 2;
      else if (Array.isArray(item)) {
        length += 2 + item.length;
        for (const element of item) pending.push(element);
      } else if (typeof item === 'object' && item !== null) {
        const entries = Object.entries(item);
        length += 2 + entries.length;
        for (const [key, element] of entries) {
          length += Buffer.byteLength(key, 'utf8') + 3;
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
export function estimatePromptTokens(view: {
  messages: readonly AgentMessage[];
  lastUsage: Usage | null;
  measuredMessageCount?: number;
}): number {
  const all = view.messages.map((entry) => entry.message);
  if (view.lastUsage === null) return estimateMessageTokens(all);
  const measured = view.measuredMessageCount ?? 0;
  const since = measured <= all.length ? all.slice(measured) : all;
  return view.lastUsage.prompt_tokens + estimateMessageTokens(since);
}
