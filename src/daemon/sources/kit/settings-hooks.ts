// ai-zen's hooks in an agent's settings file, from a small table of the agent's facts (where the
// file is, its names for ai-zen's events, how an entry is written): install, uninstall, what doctor
// reads and whether the Stop hook is in, once for every agent. Every write goes through
// settings-file.ts (locked, compare-and-swap, the file's mode kept); ours are found by their
// command's `hook <word> <event>` words, so installing twice changes nothing and uninstalling takes
// ours and nothing else.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { hashRealPath } from '../../../lock/lock-names.js';
import { aiZenHome, type Env } from '../../../paths.js';
import { type AgentHooks, CORE_HOOK_EVENTS, type HookEvent, type SettingsChange } from '../agent-hooks.js';
import {
  type Json,
  type OurHook,
  ourHookCommands,
  ourHookMark,
  readSettingsObject,
  withOurHooks,
  withoutOurHooks,
} from '../hook-groups.js';
import { settingsFormat, updateSettingsFile } from '../settings-file.js';
import type { SettingsSyntax } from '../settings-jsonc.js';
import { fileExists, valueAt, withListItem, withoutListItem } from './settings-entry.js';

/** Seconds each hook gets: PreCompact writes the offline document within it, SessionStart only answers. */
export const HOOK_SECONDS: Readonly<Record<HookEvent, number>> = { Stop: 60, PreCompact: 60, SessionStart: 10, UserPromptSubmit: 10 };

/** Claude Code's matchers: SessionStart only for a fresh start, /clear and a compaction (not a resume, which has its history). */
export const START_MATCHERS: Readonly<Record<HookEvent, string | undefined>> = {
  Stop: undefined,
  PreCompact: '',
  SessionStart: 'startup|clear|compact',
  UserPromptSubmit: undefined,
};

export interface HookTable {
  /** The agent's word in each hook's command (`hook claude Stop`): what marks a hook as ours. */
  readonly word: string;
  /** The folder `file` is in: the agent's own home, one file for every repo (user scope); null: the repo's root. */
  readonly home: ((env: Env) => string) | null;
  readonly file: string;
  /** How the agent reads the file (settings-jsonc.ts): ai-zen reads it so, and keeps a user's comments where it allows them. */
  readonly syntax: SettingsSyntax;
  /** A repo's files doctor reads too and install never writes (the shared settings: a hook of ours there is taken out by hand). */
  readonly shared: readonly string[];
  /** The agent's name for an event of ai-zen's, where it has another (Gemini's AfterAgent is Stop). */
  readonly names: Readonly<Partial<Record<HookEvent, string>>>;
  /** The events it gets (agent-hooks.ts: the core three, and UserPromptSubmit where the agent needs it). */
  readonly events: readonly HookEvent[];
  /** Which occurrences of each event run the hook; null: every one. */
  readonly matchers: Readonly<Record<HookEvent, string | undefined>> | null;
  /** The agent reads a hook's timeout in milliseconds, not seconds. */
  readonly milliseconds: boolean;
  /** Claude Code's groups (`{matcher, hooks: [{type, command, timeout}]}`), or a flat entry with its own keys. */
  readonly entry: 'groups' | FlatEntry;
  /** The user's hooks keep their places as ours come and go (Codex trusts a hook by its place). */
  readonly keepPositions: boolean;
  /**
   * A list item install puts in the file beside the hooks (Claude Code's permission rule, in
   * `permissions.allow`); uninstall takes it out only when ai-zen added it. Null: none.
   */
  readonly rule: { readonly at: readonly string[]; readonly item: string } | null;
  /** What install says after the file's name ('' for nothing), and the lines after. */
  readonly what: string;
  readonly notes: readonly string[];
}

/** Claude Code's shape, in a repo's own file, for every occurrence of each event: an agent's table says where it differs. */
export const CLAUDE_SHAPE = {
  home: null,
  syntax: 'json',
  shared: [],
  names: {},
  events: CORE_HOOK_EVENTS,
  matchers: null,
  milliseconds: false,
  entry: 'groups',
  keepPositions: false,
  rule: null,
  what: '',
  notes: [],
} as const satisfies Omit<HookTable, 'word' | 'file'>;

/** An entry straight in the event's list, `{type: "command", <command>: …, <timeout>: …}` (Copilot's `bash` and `timeoutSec`). */
export interface FlatEntry {
  readonly command: string;
  readonly timeout: string;
}

export interface SettingsHooks {
  /** The part of the agent's hooks the table gives (agent-hooks.ts). */
  readonly hooks: Pick<AgentHooks, 'scope' | 'install' | 'uninstall' | 'settingsFiles'>;
  /** Our Stop hook is in the file (whether the agent runs it is another matter). */
  installed(where: { readonly root: string | null; readonly env: Env }): Promise<boolean>;
  /** One change of the file, for what else an agent keeps there (Claude Code's MCP approval). */
  update(root: string, env: Env, change: (before: Json) => Json): Promise<SettingsChange>;
}

interface Shape {
  with(hooks: unknown, ours: readonly OurHook[], isOurs: (command: string) => boolean): Json;
  without(hooks: Json, isOurs: (command: string) => boolean): Json;
  commands(hooks: unknown, isOurs: (command: string) => boolean): string[];
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export function settingsHooks(table: HookTable): SettingsHooks {
  const isOurs = ourHookMark(table.word);
  const shape = table.entry === 'groups' ? groups(table.keepPositions) : flat(table.entry);
  const folder = (root: string | null, env: Env) => table.home?.(env) ?? root;
  const format = settingsFormat(table.syntax);
  const place = (root: string, env: Env) => {
    const file = path.join(folder(root, env)!, table.file);
    return { file, shown: table.home ? file : table.file };
  };
  const ours = (command: (event: HookEvent) => string): OurHook[] =>
    table.events.map((event) => ({
      event: table.names[event] ?? event,
      matcher: table.matchers?.[event],
      command: command(event),
      timeout: HOOK_SECONDS[event] * (table.milliseconds ? 1000 : 1),
    }));
  const withOurs = (settings: Json, command: (event: HookEvent) => string): Json => ({
    ...settings,
    hooks: shape.with(settings.hooks, ours(command), isOurs),
  });
  const withoutOurs = (settings: Json): Json => {
    if (!isObject(settings.hooks)) return settings;
    const { hooks: _ours, ...rest } = settings;
    const hooks = shape.without(settings.hooks, isOurs);
    return Object.keys(hooks).length === 0 ? rest : { ...settings, hooks };
  };
  const update = async (root: string, env: Env, change: (before: Json) => Json): Promise<SettingsChange> => {
    const { file, shown } = place(root, env);
    if (table.home) await fs.mkdir(table.home(env), { recursive: true, mode: 0o700 });
    const result = await updateSettingsFile({ root: folder(root, env)!, name: table.file, shown, env, change, format });
    return { file, changed: result.changed };
  };
  // Whether ai-zen added the rule in this repo: a mark in `$AI_ZEN_HOME/<word>-rules/`, outside the
  // settings file so the agent reads nothing of ours it does not know. A rule the user had is theirs.
  const ruleMark = (root: string, env: Env) => path.join(aiZenHome(env), `${table.word}-rules`, hashRealPath(root, 24));
  const hasRule = (settings: Json) => {
    const list = table.rule && valueAt(settings, table.rule.at);
    return Array.isArray(list) && list.includes(table.rule!.item);
  };
  const install: SettingsHooks['hooks']['install'] = async ({ root, env, command }) => {
    const { rule } = table;
    let addedRule = false;
    const result = await update(root, env, (before) => {
      addedRule = rule !== null && !hasRule(before);
      return withOurs(rule ? withListItem(before, rule.at, rule.item) : before, command);
    });
    if (addedRule) {
      await fs.mkdir(path.dirname(ruleMark(root, env)), { recursive: true, mode: 0o700 });
      await fs.writeFile(ruleMark(root, env), `${root}\n`);
    }
    return { ...result, what: table.what, notes: table.notes };
  };
  const uninstall: SettingsHooks['hooks']['uninstall'] = async ({ root, env }) => {
    const { rule } = table;
    const ruleIsOurs = rule !== null && (await fileExists(ruleMark(root, env)));
    const result = await update(root, env, (before) =>
      ruleIsOurs ? withoutListItem(withoutOurs(before), rule.at, rule.item) : withoutOurs(before),
    );
    if (rule) await fs.rm(ruleMark(root, env), { force: true });
    return result;
  };
  const oursIn = async (settings: Json) => ({ commands: shape.commands(settings.hooks, isOurs), problems: [] });
  return {
    hooks: {
      scope: table.home ? 'user' : 'repo',
      install,
      uninstall,
      settingsFiles: ({ root, env }) => {
        if (folder(root, env) === null) return [];
        const own = { ...place(root!, env), shared: false, format: 'json' as const, syntax: table.syntax, ours: oursIn };
        return [
          own,
          ...table.shared.map((name) => ({
            file: path.join(root!, name),
            shown: name,
            shared: true,
            format: 'json' as const,
            syntax: table.syntax,
            ours: oursIn,
          })),
        ];
      },
    },
    async installed({ root, env }) {
      if (folder(root, env) === null) return false;
      const { file, shown } = place(root!, env);
      const stop = table.names.Stop ?? 'Stop';
      const hooks = (await readSettingsObject(file, shown, table.syntax).catch(() => null))?.hooks;
      return isObject(hooks) && shape.commands({ [stop]: hooks[stop] }, isOurs).length > 0;
    },
    update,
  };
}

const groups = (keepPositions: boolean): Shape => ({
  with: (hooks, ours, isOurs) => withOurHooks(hooks, ours, isOurs, { keepPositions }),
  without: (hooks, isOurs) => withoutOurHooks(hooks, isOurs, { keepPositions }),
  commands: ourHookCommands,
});

/** Flat entries: ours taken out wherever they are, and put back at the end of each event's list. */
function flat(keys: FlatEntry): Shape {
  const commandOf = (entry: unknown) =>
    isObject(entry) && typeof entry[keys.command] === 'string' ? (entry[keys.command] as string) : null;
  const without = (hooks: Json, isOurs: (command: string) => boolean): Json => {
    const next: Json = { ...hooks };
    for (const [event, entries] of Object.entries(next)) {
      if (!Array.isArray(entries)) continue;
      const kept = entries.filter((entry) => !isOurs(commandOf(entry) ?? ''));
      if (kept.length === entries.length) continue;
      if (kept.length === 0) delete next[event];
      else next[event] = kept;
    }
    return next;
  };
  return {
    without,
    with: (hooks, ours, isOurs) => {
      const next = without(isObject(hooks) ? hooks : {}, isOurs);
      for (const hook of ours) {
        const entries = Array.isArray(next[hook.event]) ? (next[hook.event] as unknown[]) : [];
        next[hook.event] = [...entries, { type: 'command', [keys.command]: hook.command, [keys.timeout]: hook.timeout }];
      }
      return next;
    },
    commands: (hooks, isOurs) =>
      isObject(hooks)
        ? Object.values(hooks).flatMap((entries) =>
            Array.isArray(entries)
              ? entries.map(commandOf).filter((command): command is string => command !== null && isOurs(command))
              : [],
          )
        : [],
  };
}
