// A first-step command read as the shell would split it: simple commands (program + arguments)
// joined by `&&`, `||`, `;`, `|`, with the redirections kept apart. shell-quote does the quoting;
// variables are left as written (`$HOME` stays `$HOME`), nothing is expanded or run.
import { parse } from 'shell-quote';

export interface SimpleCommand {
  /** Leading `NAME=value` assignments are not the program. */
  readonly program: string | null;
  readonly args: readonly string[];
  /** Targets of `>`/`>>` redirections. */
  readonly writes: readonly string[];
}

type Entry = ReturnType<typeof parse>[number];

function isOperator(entry: Entry): entry is { op: string } {
  return typeof entry === 'object' && entry !== null && 'op' in entry;
}

/** A glob stays as its pattern text (shell-quote hands it back as `{ op: 'glob', pattern }`). */
function wordOf(entry: Entry): string | null {
  if (typeof entry === 'string') return entry;
  if (isOperator(entry) && entry.op === 'glob' && 'pattern' in entry) return String((entry as { pattern: unknown }).pattern);
  return null;
}

export function splitCommand(command: string): SimpleCommand[] {
  let entries: Entry[];
  try {
    entries = parse(command, (name) => `$${name}`);
  } catch {
    // Unbalanced quotes and the like: split on spaces, which is still enough to name the program.
    entries = command.split(/\s+/).filter((word) => word.length > 0);
  }
  const commands: SimpleCommand[] = [];
  let words: string[] = [];
  let writes: string[] = [];
  let redirect = false;
  const flush = () => {
    const firstIndex = words.findIndex((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
    if (words.length > 0 || writes.length > 0) {
      commands.push({
        program: firstIndex < 0 ? null : words[firstIndex]!,
        args: firstIndex < 0 ? [] : words.slice(firstIndex + 1),
        writes,
      });
    }
    words = [];
    writes = [];
  };
  for (const entry of entries) {
    if (typeof entry === 'object' && entry !== null && 'comment' in entry) break;
    const word = wordOf(entry);
    if (word !== null) {
      if (redirect) writes.push(word);
      else words.push(word);
      redirect = false;
      continue;
    }
    if (!isOperator(entry)) continue;
    if (entry.op === '>' || entry.op === '>>') {
      redirect = true;
      continue;
    }
    // `2>&1`, `<` and `<(`: they read or duplicate, and write nothing of the repo's.
    if (entry.op === '>&' || entry.op === '<' || entry.op === '<(' || entry.op === '(' || entry.op === ')') continue;
    flush();
  }
  flush();
  return commands;
}
