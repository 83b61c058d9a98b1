// A TOML settings file (Codex's config.toml) under the same compare-and-swap as the JSON ones
// (settings-file.ts), edited as text so the user's comments and layout stay as they were.
import { SettingsNotJson } from './hook-groups.js';
import type { SettingsFormat } from './settings-file.js';

export type ParseToml = (text: string) => Record<string, unknown>;

/** smol-toml's parse, loaded when a TOML file is written: the hook's lean entry and the daemon never do. */
export async function loadToml(): Promise<ParseToml> {
  return (await import('smol-toml')).parse;
}

/**
 * A TOML settings file as the swap carries it (settings-file.ts): the whole text under one key, so a
 * write of the agent's own that lands during ours is carried whole. Parsed before every write: a
 * file that is not TOML is the user's to fix, and is never written over.
 */
export function tomlText(parse: ParseToml): SettingsFormat {
  return {
    parse: (text, shown) => {
      if (text === null) return { text: '' };
      try {
        parse(text);
      } catch (error) {
        const line = (error as { line?: unknown }).line;
        const where = typeof line === 'number' ? ` (line ${line})` : '';
        throw new SettingsNotJson(`${shown} is not valid TOML${where}; fix it first (nothing was changed)`, { cause: error });
      }
      return { text };
    },
    serialize: (value) => String(value.text),
  };
}

/** The closing line of a block of ours. */
const END = '# <<< ai-zen';

/** A key as TOML writes it: bare when it may be, else quoted. */
export const tomlKey = (key: string) => (/^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key));
const escaped = (key: string) => key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A block of ours (`mark`, the table at `at`, its keys, the closing line), to go at the end of the file. */
export function tomlBlock(mark: string, at: readonly string[], value: Record<string, unknown>): string {
  const keys = Object.entries(value).map(([key, item]) => `${tomlKey(key)} = ${JSON.stringify(item)}`);
  return [mark, `[${at.map(tomlKey).join('.')}]`, ...keys, END, ''].join('\n');
}

/** The text without our block (that opens with `mark`), what another writer put in it kept. */
export function withoutTomlBlock(text: string, mark: string, at: readonly string[]): string {
  const start = text.indexOf(mark);
  if (start < 0) return text;
  const end = text.indexOf(END, start);
  if (end < 0) return text;
  let after = end + END.length;
  if (text[after] === '\n') after += 1;
  // Codex appends tables of its own at the end of the file — the trust of the user's hooks,
  // `[hooks.state."…"]` — so after our table and before our closing line: only our table goes, what
  // Codex put in the block stays (else uninstall-hooks codex took the user's hook trust along).
  const ours = new RegExp(
    `^\\s*\\[\\s*${at.map((key) => `(?:${escaped(key)}|"${escaped(key)}"|'${escaped(key)}')`).join('\\s*\\.\\s*')}\\s*\\]`,
  );
  const kept: string[] = [];
  let inOurs = false;
  for (const line of text.slice(start + mark.length, end).split('\n')) {
    if (/^\s*\[/.test(line)) inOurs = ours.test(line);
    if (!inOurs) kept.push(line);
  }
  const theirs = kept.join('\n').replace(/^\n+|\n+$/g, '');
  // The blank line install put before the block goes too.
  const before = text.slice(0, start).replace(/\n\n$/, '\n');
  return before + (theirs === '' ? '' : `${theirs}\n`) + text.slice(after);
}
