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
