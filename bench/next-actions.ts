// Next-actions recall, the measurement itself: what the steps after a cut touch — the
// files, the commands, the ports — and how many of them a handoff document written from the steps
// before the cut names. An item the prefix never touched cannot be in a document written from it, so
// each item is counted as "seen before the cut" or "new after the cut", and the target is on the
// first. Pure (no I/O, no ../dist/): test/bench/next-actions-recall.fast.test.ts checks it on a
// hand-made prefix and suffix whose recall is known.

/** The shape of ai-zen's transcript messages (session/session-recorder.ts AgentMessage), as far as read here. */
export interface TranscriptMessage {
  readonly message: {
    readonly role: string;
    readonly content?: unknown;
    readonly tool_calls?: readonly { readonly id: string; readonly function: { readonly name: string; readonly arguments: string } }[];
    readonly tool_call_id?: string;
  };
}

/** One step: a tool call whose result the transcript holds. */
export interface Step {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}

export type ItemKind = 'files' | 'commands' | 'ports';
export const ITEM_KINDS: readonly ItemKind[] = ['files', 'commands', 'ports'];

export interface Touched {
  readonly files: ReadonlySet<string>;
  readonly commands: ReadonlySet<string>;
  readonly ports: ReadonlySet<string>;
}

export interface Count {
  readonly found: number;
  readonly total: number;
}

/** Per kind: the items of the next steps already seen before the cut, and those first touched after it. */
export type CutRecall = Record<ItemKind, { readonly seen: Count; readonly new: Count; readonly missed: readonly string[] }>;

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The steps of a transcript, in order: its tool calls that have a result. */
export function stepsOf(messages: readonly TranscriptMessage[]): Step[] {
  const answered = new Set(messages.filter((entry) => entry.message.role === 'tool').map((entry) => entry.message.tool_call_id));
  return messages.flatMap((entry) =>
    (entry.message.tool_calls ?? [])
      .filter((call) => answered.has(call.id))
      .map((call) => ({ tool: call.function.name, args: parseArguments(call.function.arguments) })),
  );
}

/** Arguments that name a file, in ai-zen's tools and in the tools the evidence readers pass through (Claude's Read). */
const FILE_KEYS = ['path', 'file_path', 'notebook_path', 'from', 'to'];
/** A word of a command that names a file in the repo: a relative path with a folder or an extension. */
const PATH_WORD = /^(?:\.\/)?(?:[\w@-][\w@.-]*\/)*[\w@-][\w@.-]*\.[A-Za-z][\w]*$|^(?:\.\/)?[\w@-][\w@.-]*(?:\/[\w@.-]+)+\/?$/;
/** A port a command names: after PORT=, --port, -p, or a host and a colon. */
const PORT = /(?:\bPORT=|--port[= ]|\s-p\s|(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\]):)(\d{2,5})\b/gi;

/** A normalised command: whitespace collapsed, the way a document's one-line code span shows it. */
export function normaliseCommand(command: string): string {
  return command.replace(/\s+/g, ' ').trim();
}

/** A file as the document names it: relative to the repo root. */
function repoRelative(file: string, root: string): string | null {
  const trimmed = file.replace(/^\.\//, '');
  if (trimmed.startsWith(`${root}/`)) return trimmed.slice(root.length + 1);
  if (trimmed.startsWith('/') || trimmed.startsWith('~') || trimmed.startsWith('..')) return null;
  return trimmed.replace(/\/$/, '');
}

export function commandFiles(command: string): string[] {
  return command
    .split(/[\s;&|<>()'"`=]+/)
    .filter((word) => word !== '' && !word.startsWith('-') && !word.includes('://') && !word.includes('$') && PATH_WORD.test(word));
}

export function commandPorts(command: string): string[] {
  return [...command.matchAll(PORT)].map((match) => match[1]!).filter((port) => Number(port) >= 1 && Number(port) <= 65_535);
}

/** What some steps touch: the files their arguments or commands name, their commands, the ports in those. */
export function touchedBy(steps: readonly Step[], root: string): Touched {
  const files = new Set<string>();
  const commands = new Set<string>();
  const ports = new Set<string>();
  for (const step of steps) {
    for (const key of FILE_KEYS) {
      const value = step.args[key];
      const file = typeof value === 'string' ? repoRelative(value, root) : null;
      if (file) files.add(file);
    }
    const command = step.tool === 'exec' && typeof step.args.command === 'string' ? step.args.command : null;
    if (command === null) continue;
    commands.add(normaliseCommand(command));
    for (const word of commandFiles(command)) {
      const file = repoRelative(word, root);
      if (file) files.add(file);
    }
    for (const port of commandPorts(command)) ports.add(port);
  }
  return { files, commands, ports };
}

/** Whether a document names an item: the file's repo path, the command as written, the port as a number of its own. */
export function names(document: string, kind: ItemKind, item: string): boolean {
  const text = normaliseCommand(document.replace(/ ⏎ /g, ' '));
  if (kind === 'ports') return new RegExp(`(?<!\\d)${item}(?!\\d)`).test(text);
  if (kind === 'files') return new RegExp(`(?<![\\w./-])(?:\\./)?${escapeRegExp(item)}(?![\\w/-]|\\.\\w)`).test(text);
  return text.includes(item);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The recall of one cut: of the items the next steps touch, how many the document names — split
 * into those the steps before the cut had touched too (seen) and those they had not (new).
 */
export function recallAtCut(document: string, before: readonly Step[], next: readonly Step[], root: string): CutRecall {
  const seen = touchedBy(before, root);
  const upcoming = touchedBy(next, root);
  const result = {} as Record<ItemKind, { seen: Count; new: Count; missed: string[] }>;
  for (const kind of ITEM_KINDS) {
    const tally = { seen: { found: 0, total: 0 }, new: { found: 0, total: 0 }, missed: [] as string[] };
    for (const item of upcoming[kind]) {
      const group = seen[kind].has(item) ? tally.seen : tally.new;
      group.total += 1;
      if (names(document, kind, item)) group.found += 1;
      else if (group === tally.seen) tally.missed.push(item);
    }
    result[kind] = tally;
  }
  return result;
}

export function addCounts(a: Count, b: Count): Count {
  return { found: a.found + b.found, total: a.total + b.total };
}
