// What each benchmark item hands back: its figures, each beside its target with a pass/fail mark,
// or why it could not run. run.ts renders these into bench/RESULTS.md.

export interface Figure {
  readonly name: string;
  /** The measured value, formatted. */
  readonly measured: string;
  /** The target as a person reads it, or '—' for a figure given for comparison only. */
  readonly target: string;
  /** null: a comparison figure with no target of its own. */
  readonly pass: boolean | null;
}

export interface ItemResult {
  readonly id: 'a' | 'b' | 'c' | 'd' | 'e' | 'f' | 'g' | 'x' | 's' | 'r' | 'h' | 't' | 'w';
  readonly title: string;
  /** null when it ran; else why not (one line). */
  readonly notRun: string | null;
  readonly figures: readonly Figure[];
  /** How it was measured, and anything a reader needs to trust or doubt the numbers. */
  readonly notes: readonly string[];
}

export function notRun(id: ItemResult['id'], title: string, reason: string): ItemResult {
  return { id, title, notRun: reason, figures: [], notes: [] };
}

export function mark(pass: boolean | null): string {
  if (pass === null) return '';
  return pass ? '✅ pass' : '❌ FAIL';
}
