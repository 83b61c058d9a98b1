// Claude Code transcript lines as the client writes them (2.1.332), for the tests that put a
// fixture where Claude keeps its sessions instead of running the client.

/** The person's prompt. */
export function claudeUser(text: string): object {
  return { type: 'user', message: { role: 'user', content: text } };
}

/** A reply of `contextTokens` context (all of it input: no cache). */
export function claudeAssistant(id: string, content: object[], contextTokens: number): object {
  return {
    type: 'assistant',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content,
      usage: { input_tokens: contextTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 20 },
    },
  };
}

/** The entries as JSONL lines of session `sessionId` run in `cwd`, stamped now. */
export function claudeLines(cwd: string, sessionId: string, entries: readonly object[]): string {
  return entries
    .map(
      (entry) =>
        `${JSON.stringify({ parentUuid: null, isSidechain: false, cwd, sessionId, version: '2.1.332', timestamp: new Date().toISOString(), ...entry })}\n`,
    )
    .join('');
}
