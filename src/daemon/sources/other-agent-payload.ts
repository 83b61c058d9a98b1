// Another agent running this agent's hooks (Cursor runs Claude Code's from .claude/settings*.json)
// is not asked, told or blocked: its session is not one ai-zen watches, and a block would hold its
// stop. Checked where both hook paths read an input (process/hook-input-answer.ts: hookRequestOf).

/** Fields only Cursor's hook input has (its common schema); no agent whose hooks ai-zen installs sends them. */
const OTHER_AGENTS_FIELDS = ['cursor_version', 'conversation_id', 'generation_id', 'workspace_roots'];

/** Whether a hook's input is another agent's: Cursor's fields, or Claude's event spelt Cursor's way ("stop", "sessionStart"). */
export function isOtherAgentsPayload(raw: unknown, agent: string, event: string): boolean {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return false;
  if (OTHER_AGENTS_FIELDS.some((field) => field in raw)) return true;
  const named = (raw as { hook_event_name?: unknown }).hook_event_name;
  return (
    (agent === 'claude' || agent === 'claude-code') &&
    typeof named === 'string' &&
    named !== event &&
    named.toLowerCase() === event.toLowerCase()
  );
}
