// What starts a successor from a handoff document, in one wording for every agent and every place
// that shows it (the notification, status, handoffs, the hook's message): the agent's own command
// with its first prompt, quoted by shell-quote. The prompt names "handoff document" and the path:
// that is what the daemon looks for to link the successor to its predecessor.
import { quote } from 'shell-quote';

/** The successor's first request: the document's path and the instruction to continue from it, nothing else. */
export function successorInstruction(documentPath: string): string {
  return `Read the handoff document ${documentPath} (the previous session's record) and continue the work from its breakpoint.`;
}

/** The agent's command line that starts a fresh session from the document — never a resume of the old one. */
export function successorCommand(
  agent: { readonly word: string; startArgs(prompt: string, clientArgs: readonly string[]): readonly string[] },
  documentPath: string,
): string {
  return quote([agent.word, ...agent.startArgs(successorInstruction(documentPath), [])]);
}
