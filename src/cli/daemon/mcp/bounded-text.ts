// No answer of `ai-zen-daemon mcp` is longer than 16 KB — it lands in the asking
// agent's context, whose room is the very thing ai-zen guards. Cut at a character boundary, with a
// last line that says how much was left out and how to read on.
export const MAX_ANSWER_BYTES = 16 * 1024;

export function boundedText(text: string, hint: string, maxBytes = MAX_ANSWER_BYTES): string {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes) return text;
  const note = (left: number) => `\n[truncated: ${left} more bytes; ${hint}]`;
  // The note's own length depends on the number in it: reserve room for the widest one.
  const room = maxBytes - Buffer.byteLength(note(bytes), 'utf8');
  let kept = Buffer.from(text, 'utf8').subarray(0, Math.max(0, room)).toString('utf8');
  // A multi-byte character cut in half decodes to U+FFFD: drop it.
  if (kept.endsWith('\uFFFD')) kept = kept.slice(0, -1);
  return `${kept}${note(bytes - Buffer.byteLength(kept, 'utf8'))}`;
}
