// How a document's checks read for a person (`ai-zen-daemon handoffs`, `status`, the chat's
// `/status`, the notification): "checked ✓", or what is wrong.
import type { HandoffChecks } from '../../session/format.js';

export function checkProblems(checks: HandoffChecks): string[] {
  return [...checks.sections, ...checks.facts, ...checks.files, ...checks.commands];
}

/** "checked ✓", "check failed: …" (every problem), or null when the document was not checked (an older line, another tool). */
export function describeChecks(checks: HandoffChecks | undefined | null): string | null {
  if (checks === undefined || checks === null) return null;
  const problems = checkProblems(checks);
  return problems.length === 0 ? 'checked ✓' : `check failed: ${problems.join('; ')}`;
}
