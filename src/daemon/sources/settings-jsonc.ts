// Settings files whose agent reads JSON with comments, read as that agent reads them (Microsoft's
// jsonc-parser, VS Code's) and written as edits to the user's own text (jsonc-text-edits.ts): their
// comments, layout and key order stay, and only the values ai-zen changes are touched.
import { type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { insertAtEnd, type JsonPath, layoutOf, removeAt, replaceAt } from './jsonc-text-edits.js';

/**
 * How an agent reads its settings file: strict JSON (Claude Code, Codex, pi, Copilot); JSON with
 * comments and no trailing comma (Gemini CLI and Qwen Code strip comments, then JSON.parse); JSONC
 * with trailing commas too (opencode and Kilo Code parse with jsonc-parser).
 */
export type SettingsSyntax = 'json' | 'json-comments' | 'jsonc';

export type JsoncRead = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string };

/** The text as the agent reads it (syntax other than 'json'), or where it stops being readable. */
export function readJsonc(text: string, syntax: Exclude<SettingsSyntax, 'json'>): JsoncRead {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: syntax === 'jsonc', allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return { ok: true, value };
  const line = text.slice(0, first.offset).split('\n').length;
  // Say so when it is only a trailing comma: opencode takes one, Gemini and Qwen do not.
  if (syntax === 'json-comments' && readJsonc(text, 'jsonc').ok) return { ok: false, problem: `a trailing comma at line ${line}` };
  return { ok: false, problem: `${printParseErrorCode(first.error)} at line ${line}` };
}

/** What a walk does to the text: take out, add at the end of its object or array, put another value in. */
interface Editor {
  remove(at: JsonPath): void;
  append(at: JsonPath, key: string | undefined, value: unknown): void;
  replace(at: JsonPath, value: unknown): void;
}

/**
 * `text` (which reads as `before`) edited to read as `after`: each value that differs is set in
 * place, each key or item that went is taken out, each new one added at the end of its object or
 * array; everything else stays byte for byte. Null when the edited text would not read as `after`
 * (the caller writes nothing).
 */
export function editedText(text: string, before: unknown, after: unknown, syntax: Exclude<SettingsSyntax, 'json'>): string | null {
  const layout = layoutOf(text);
  let edited = text;
  walk([], before, after, {
    remove: (at) => (edited = removeAt(edited, at)),
    append: (at, key, value) => (edited = insertAtEnd(edited, at, key, value, layout)),
    replace: (at, value) => (edited = replaceAt(edited, at, value, layout)),
  });
  const read = readJsonc(edited, syntax);
  return read.ok && same(read.value, after) ? edited : null;
}

function walk(at: JsonPath, before: unknown, after: unknown, editor: Editor): void {
  if (same(before, after)) return;
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) editor.remove([...at, key]);
    for (const [key, value] of Object.entries(after))
      if (Object.hasOwn(before, key)) walk([...at, key], before[key], value, editor);
      else editor.append(at, key, value);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const kept = keptItems(before, after);
    if (kept !== null) {
      // The items that went, from the last (the indexes before them hold), then the new ones at the end.
      for (let index = before.length - 1; index >= 0; index -= 1) if (!kept.has(index)) editor.remove([...at, index]);
      for (const item of after.slice(kept.size)) editor.append(at, undefined, item);
      return;
    }
    if (before.length === after.length) {
      for (const [index, item] of before.entries()) walk([...at, index], item, after[index], editor);
      return;
    }
  }
  editor.replace(at, after);
}

/**
 * `after` as some of `before`'s items in their order followed by new ones (ours taken out, ours put
 * at the end): the indexes of `before` that stay. Null when none of `before`'s stays.
 */
function keptItems(before: readonly unknown[], after: readonly unknown[]): Set<number> | null {
  // As much of `after`'s head as is found in order in `before`; what follows it in `after` is new.
  const kept = new Set<number>();
  let next = 0;
  for (let index = 0; index < before.length && next < after.length; index += 1)
    if (same(before[index], after[next])) {
      kept.add(index);
      next += 1;
    }
  return kept.size > 0 || before.length === 0 ? kept : null;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Equal as values: the keys of an object in any order. */
function same(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => same(item, b[index]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && same(a[key], b[key]));
  }
  return Object.is(a, b);
}
