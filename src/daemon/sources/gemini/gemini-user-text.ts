// The words of a Gemini CLI user message, less what the client itself puts there (checked with
// 0.61): its `<session_context>` message at the start, and the `<hook_context>…</hook_context>` a
// SessionStart or BeforeAgent hook's additionalContext becomes — prepended to the person's first
// prompt in the same text part, or a part of its own.
const CLIENT_BLOCKS = /<(session_context|hook_context)>[\s\S]*?<\/\1>/g;

/** The user message's text parts, each without the client's blocks, empty ones dropped. */
export function userTexts(content: unknown): string[] {
  const parts =
    typeof content === 'string'
      ? [content]
      : Array.isArray(content)
        ? content.map((part) => (typeof part === 'object' && part !== null ? (part as { text?: unknown }).text : undefined))
        : [];
  return parts
    .filter((text): text is string => typeof text === 'string')
    .map((text) => text.replace(CLIENT_BLOCKS, '').trim())
    .filter((text) => text !== '');
}
