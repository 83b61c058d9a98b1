// One entry of ai-zen's at a key path of an agent's settings file — its MCP server, its statusline —
// beside the user's own: install puts ours in unless the user has one of their own there (that one
// stays, and install says so), uninstall takes ours and only ours. JSON or TOML is the table's data:
// the format finds the user's entry and writes ours (in TOML as a marked block of text,
// settings-toml.ts). Every write is settings-file.ts's compare-and-swap, the file's mode kept.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Env } from '../../../paths.js';
import type { SettingsChange } from '../agent-hooks.js';
import type { Json } from '../hook-groups.js';
import { JSON_SETTINGS, type SettingsFormat, updateSettingsFile } from '../settings-file.js';
import { AiZenError } from '../../../errors.js';
import { loadToml, type ParseToml, tomlBlock, tomlKey, tomlText, withoutTomlBlock } from '../settings-toml.js';

export interface EntryTable {
  /** The folder `file` is in: the agent's own home (one entry for every repo); null: the repo's root. */
  readonly home: ((env: Env) => string) | null;
  readonly file: string;
  /** Where in the file: `['mcpServers', 'ai-zen']`. */
  readonly at: readonly string[];
  /** JSON, where `isOurs` tells our entry from the user's at the same key; or TOML, ours in a block that opens with `mark`. */
  readonly format: { readonly kind: 'json'; isOurs(value: unknown, env: Env): boolean } | { readonly kind: 'toml'; readonly mark: string };
  /** A file left holding nothing once ours is out goes with it (one install created it). */
  readonly dropEmpty: boolean;
}

/** A settings format that can also find and write one entry (settings-toml.ts's tomlEntries, jsonEntries below). */
export interface EntryFormat extends SettingsFormat {
  /** The user's own entry at `at`; undefined: none. */
  theirs(settings: Json, at: readonly string[]): unknown;
  /** The settings with ours at `at`, or (value undefined) without ours; `shown` names the file in a refusal. */
  put(settings: Json, at: readonly string[], value: Json | undefined, shown: string): Json;
}

export interface SettingsEntry {
  /** The file the entry goes in. */
  fileOf(root: string, env: Env): string;
  /** Ours in, unless `theirs` (the user's own entry, left as it was). */
  install(root: string, env: Env, value: Json): Promise<SettingsChange & { readonly theirs: unknown }>;
  uninstall(root: string, env: Env): Promise<SettingsChange>;
}

export function settingsEntry(table: EntryTable): SettingsEntry {
  const place = (root: string, env: Env) => {
    const folder = table.home?.(env) ?? root;
    const file = path.join(folder, table.file);
    return { folder, file, shown: table.home ? file : table.file };
  };
  const formatOf = async (env: Env): Promise<EntryFormat> => {
    const format = table.format;
    return format.kind === 'json' ? jsonEntries((value) => format.isOurs(value, env)) : tomlEntries(await loadToml(), format.mark);
  };
  return {
    fileOf: (root, env) => place(root, env).file,
    async install(root, env, value) {
      const { folder, file, shown } = place(root, env);
      const format = await formatOf(env);
      if (table.home) await fs.mkdir(folder, { recursive: true, mode: 0o700 });
      let theirs: unknown;
      const change = (before: Json) => {
        theirs = format.theirs(before, table.at);
        return theirs === undefined ? format.put(before, table.at, value, shown) : before;
      };
      const result = await updateSettingsFile({ root: folder, name: table.file, shown, env, format, change });
      return { file, changed: result.changed, theirs };
    },
    async uninstall(root, env) {
      const { folder, file, shown } = place(root, env);
      if (!(await fileExists(file))) return { file, changed: false };
      const format = await formatOf(env);
      const change = (before: Json) => format.put(before, table.at, undefined, shown);
      const { changed } = await updateSettingsFile({ root: folder, name: table.file, shown, env, format, change });
      if (table.dropEmpty && changed && ['', '{}'].includes((await fs.readFile(file, 'utf8')).trim())) await fs.rm(file, { force: true });
      return { file, changed };
    },
  };
}

export const fileExists = (file: string): Promise<boolean> =>
  fs.stat(file).then(
    () => true,
    () => false,
  );

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value at `at`; undefined: none. */
export function valueAt(settings: unknown, at: readonly string[]): unknown {
  return at.reduce<unknown>((value, key) => (isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined), settings);
}

/** The settings with `value` at `at` (objects made on the way), or without it (undefined; objects it leaves empty go too). */
export function withValueAt(settings: Json, at: readonly string[], value: unknown): Json {
  const [key, ...rest] = at;
  if (key === undefined) return settings;
  const next: Json = { ...settings };
  const inner = rest.length === 0 ? value : withValueAt(isObject(next[key]) ? next[key] : {}, rest, value);
  if (inner === undefined || (rest.length > 0 && value === undefined && Object.keys(inner as Json).length === 0)) delete next[key];
  else next[key] = inner;
  return next;
}

/** The list at `at` with `item` in it (at its end, once). */
export function withListItem(settings: Json, at: readonly string[], item: string): Json {
  const list = valueAt(settings, at);
  const items = Array.isArray(list) ? list : [];
  return withValueAt(settings, at, items.includes(item) ? items : [...items, item]);
}

/** The list at `at` without `item`; a list left empty goes, and so do the objects it leaves empty. */
export function withoutListItem(settings: Json, at: readonly string[], item: string): Json {
  const list = valueAt(settings, at);
  if (!Array.isArray(list) || !list.includes(item)) return settings;
  const kept = list.filter((entry) => entry !== item);
  return withValueAt(settings, at, kept.length === 0 ? undefined : kept);
}

/** JSON settings whose entry at a key is ours when `isOurs` says so; any other there is the user's. */
export function jsonEntries(isOurs: (value: unknown) => boolean): EntryFormat {
  return {
    ...JSON_SETTINGS,
    theirs: (settings, at) => {
      const value = valueAt(settings, at);
      return value === undefined || isOurs(value) ? undefined : value;
    },
    put: (settings, at, value) => (value === undefined && !isOurs(valueAt(settings, at)) ? settings : withValueAt(settings, at, value)),
  };
}

/** TOML settings with ours as one table in a block that opens with `mark`; a table at `at` outside the block is the user's. */
export function tomlEntries(parse: ParseToml, mark: string): EntryFormat {
  return {
    ...tomlText(parse),
    theirs: (settings, at) => valueAt(parse(withoutTomlBlock(String(settings.text), mark, at)), at),
    put: (settings, at, value, shown) => {
      const text = withoutTomlBlock(String(settings.text), mark, at);
      if (value === undefined) return { text };
      const next = `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${text === '' ? '' : '\n'}${tomlBlock(mark, at, value)}`;
      try {
        parse(next);
      } catch (error) {
        // An inline `mcp_servers = { … }` of the user's cannot take a table of ours.
        const table = at.map(tomlKey).join('.');
        const message = `${shown}: ai-zen's [${table}] cannot be added to its ${at.slice(0, -1).join('.')}; add it by hand (nothing was changed)`;
        throw new AiZenError('config', message, { cause: error });
      }
      return { text: next };
    },
  };
}
