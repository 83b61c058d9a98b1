// The three edits settings-jsonc.ts makes to a settings file's text — insert an entry at the end of an
// object or array, remove one, replace a value — each touching only the bytes of that entry (and a
// comma beside it): jsonc-parser's own `modify` reformats the lines around an edit and drops the
// comments between an array's last two items, and a user's comments there are theirs.
import { createScanner, findNodeAtLocation, type Node, parseTree } from 'jsonc-parser';

export type JsonPath = readonly (string | number)[];

/** The file's own indentation and line ending: what an inserted entry is written with. */
export interface Layout {
  readonly unit: string;
  readonly eol: string;
}

export function layoutOf(text: string): Layout {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indents = [...text.matchAll(/\n([ \t]+)\S/g)].map((match) => match[1]!);
  if (indents.some((indent) => indent.startsWith('\t'))) return { unit: '\t', eol };
  const widths = indents.map((indent) => indent.length);
  return { unit: ' '.repeat(widths.length === 0 ? 2 : Math.min(...widths)), eol };
}

/** `value` at the end of the object or array at `at` (`key`: an object's new property). */
export function insertAtEnd(text: string, at: JsonPath, key: string | undefined, value: unknown, layout: Layout): string {
  const container = nodeAt(text, at);
  const children = container.children ?? [];
  const close = container.offset + container.length - 1;
  const entry = (indent: string) => `${key === undefined ? '' : `${JSON.stringify(key)}: `}${rendered(value, indent, layout)}`;
  const last = children.at(-1);
  if (last === undefined) {
    const indent = indentOf(text, container.offset);
    const inside = text.slice(container.offset + 1, close);
    // An empty `{}` or `[]` becomes a block; one holding only comments keeps them after ours.
    if (inside.trim() === '')
      return splice(
        text,
        container.offset + 1,
        close,
        `${layout.eol}${indent}${layout.unit}${entry(indent + layout.unit)}${layout.eol}${indent}`,
      );
    return splice(text, container.offset + 1, container.offset + 1, `${layout.eol}${indent}${layout.unit}${entry(indent + layout.unit)}`);
  }
  const end = last.offset + last.length;
  if (!startsLine(text, last.offset))
    return splice(text, end, end, `, ${key === undefined ? '' : `${JSON.stringify(key)}: `}${JSON.stringify(value)}`);
  const indent = indentOf(text, last.offset);
  const comma = commaAfter(text, end);
  if (!startsLine(text, close)) return splice(text, end, end, `,${layout.eol}${indent}${entry(indent)}`);
  // On a line of its own before the closing bracket's, in the file's comma style: with a trailing comma when it has one.
  const lineStart = text.lastIndexOf('\n', close - 1) + 1;
  if (comma !== null) return splice(text, lineStart, lineStart, `${indent}${entry(indent)},${layout.eol}`);
  const added = splice(text, lineStart, lineStart, `${indent}${entry(indent)}${layout.eol}`);
  return splice(added, end, end, ',');
}

/** The property or item at `at` taken out, with its comma, and its line when nothing else is on it. */
export function removeAt(text: string, at: JsonPath): string {
  const node = nodeAt(text, at);
  const entry = node.parent?.type === 'property' ? node.parent : node;
  const siblings = entry.parent?.children ?? [];
  const index = siblings.indexOf(entry);
  let start = entry.offset;
  let end = entry.offset + entry.length;
  const after = commaAfter(text, end);
  if (after !== null) end = after + 1;
  else if (index > 0) {
    // The last one, with no comma after it: the comma before it goes instead.
    const previous = siblings[index - 1]!;
    const before = commaAfter(text, previous.offset + previous.length);
    if (before !== null) text = splice(text, before, before + 1, '');
    start -= 1;
    end -= 1;
  }
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const newline = text.indexOf('\n', end);
  const lineEnd = newline < 0 ? text.length : newline + 1;
  if (text.slice(lineStart, start).trim() === '' && text.slice(end, lineEnd).trim() === '') return splice(text, lineStart, lineEnd, '');
  // Sharing its line: the blanks that separated it go with it.
  while (start > lineStart && (text[start - 1] === ' ' || text[start - 1] === '\t')) start -= 1;
  return splice(text, start, end, '');
}

/** The value at `at` replaced by `value`, written at its line's indentation. */
export function replaceAt(text: string, at: JsonPath, value: unknown, layout: Layout): string {
  const node = nodeAt(text, at);
  return splice(text, node.offset, node.offset + node.length, rendered(value, indentOf(text, node.offset), layout));
}

function nodeAt(text: string, at: JsonPath): Node {
  const root = parseTree(text, [], { allowTrailingComma: true });
  const node = root && (at.length === 0 ? root : findNodeAtLocation(root, [...at]));
  if (!node) throw new Error(`no value at ${JSON.stringify(at)}`);
  return node;
}

/** The offset of the comma that follows `offset` past blanks and comments; null: the next token is not one. */
function commaAfter(text: string, offset: number): number | null {
  const scanner = createScanner(text, true);
  scanner.setPosition(offset);
  scanner.scan();
  return text[scanner.getTokenOffset()] === ',' ? scanner.getTokenOffset() : null;
}

function startsLine(text: string, offset: number): boolean {
  return text.slice(text.lastIndexOf('\n', offset - 1) + 1, offset).trim() === '';
}

/** The blanks that open the line `offset` is on. */
function indentOf(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** JSON of `value` whose later lines sit at `indent`, in the file's unit and line ending. */
function rendered(value: unknown, indent: string, layout: Layout): string {
  return JSON.stringify(value, null, layout.unit).replace(/\n/g, `${layout.eol}${indent}`);
}

function splice(text: string, start: number, end: number, content: string): string {
  return text.slice(0, start) + content + text.slice(end);
}
