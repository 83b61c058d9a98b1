// A rough token count, for deciding before a request is sent (R14). The real count comes back
// in `usage`; between two responses we add about one token per four characters.
import type { ChatMessage, Usage } from '../session/format.js';
import type { AgentMessage } from './types.js';

export const CHARS_PER_TOKEN = 4;

export function estimateMessageTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) chars += JSON.stringify(message).length;
  return Math.ceil(chars / CHARS_PER_TOKEN);
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
