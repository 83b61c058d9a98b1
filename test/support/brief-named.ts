// The brief the Stop hook's reason names: a fake model reads it first with the agent's read tool, as
// a real model does, and writes the document from what that read returned.

/** The brief's path in the reason; a path that names nothing when the reason has none (the read then fails visibly). */
export function briefNamedIn(text: string): string {
  return /First read (\S+?\.md) with your/.exec(text)?.[1] ?? '/no-brief-named.md';
}
