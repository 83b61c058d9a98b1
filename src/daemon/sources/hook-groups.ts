// The `hooks` object that Claude Code's settings and Codex's hooks.json share (X3):
// `{ "<Event>": [{ "matcher"?: "…", "hooks": [{ "type": "command", "command": "…", "timeout": N }] }] }`.
// ai-zen's entries are merged in after the user's own and recognised by their command alone, so
// installing twice changes nothing and uninstalling removes ours and nothing else; a reinstall puts
// ours back where they were, so no hook of the user's moves (Codex trusts a hook by its place).
import { NotRegularFileError, readRegularText } from '../../fs/open-regular-file.js';
import { AiZenError } from '../../errors.js';
import { HOOK_EVENTS, type HookEvent, type HookInput } from './agent-hooks.js';
import { readJsonc, type SettingsSyntax } from './settings-jsonc.js';

const SYNTAX_NAMES = { 'json-comments': 'JSON with comments', jsonc: 'JSONC' } as const;

export type Json = Record<string, unknown>;

/** One hook of ours: the event, its matcher (none: every occurrence) and the seconds the agent gives it. */
export interface OurHook {
  readonly event: string;
  readonly matcher?: string;
  readonly command: string;
  readonly timeout: number;
}

function commandOf(hook: unknown): string | null {
  return hook && typeof hook === 'object' && typeof (hook as Json).command === 'string' ? ((hook as Json).command as string) : null;
}

/** How ours are taken out: Codex keeps a hook's trust by its place (`<event>:<group>:<hook>`), Claude Code by nothing. */
export interface HookPlaces {
  /**
   * Keep every other group where it was: a group of ours that a user's group follows
   * becomes an empty placeholder (`{"hooks": []}`) instead of going, so the user's hooks after it
   * keep their place and Codex their trust; placeholders at the end are dropped, and the next install fills them.
   */
  readonly keepPositions?: boolean;
}

const isPlaceholder = (group: unknown) =>
  !!group && typeof group === 'object' && Array.isArray((group as Json).hooks) && ((group as Json).hooks as unknown[]).length === 0;

/** The hooks object without our entries; groups left empty by that are dropped (or held, see HookPlaces), the user's stay as they were. */
export function withoutOurHooks(hooks: unknown, isOurs: (command: string) => boolean, places: HookPlaces = {}): Json {
  const next: Json = hooks && typeof hooks === 'object' && !Array.isArray(hooks) ? { ...(hooks as Json) } : {};
  for (const [event, groups] of Object.entries(next)) {
    if (!Array.isArray(groups)) continue;
    const left = settle(
      groups.map((group: unknown) => withoutOursIn(group, isOurs, places)),
      places,
    );
    if (left.length === 0) delete next[event];
    else next[event] = left;
  }
  return next;
}

const isOurHook = (hook: unknown, isOurs: (command: string) => boolean) => {
  const command = commandOf(hook);
  return command !== null && isOurs(command);
};

/** One group without our hooks: as it was, with fewer hooks, a placeholder, or null (gone). */
function withoutOursIn(group: unknown, isOurs: (command: string) => boolean, places: HookPlaces): unknown {
  if (!group || typeof group !== 'object' || !Array.isArray((group as Json).hooks)) return group;
  const inner = ((group as Json).hooks as unknown[]).filter((hook) => !isOurHook(hook, isOurs));
  if (inner.length === ((group as Json).hooks as unknown[]).length) return group;
  if (inner.length > 0) return { ...(group as Json), hooks: inner };
  return places.keepPositions ? { hooks: [] } : null;
}

/** Gone groups dropped; placeholders at the end too (nothing after them needs its place kept). */
function settle(groups: unknown[], places: HookPlaces): unknown[] {
  const left = groups.filter((group) => group !== null);
  if (!places.keepPositions) return left;
  let end = left.length;
  while (end > 0 && isPlaceholder(left[end - 1])) end -= 1;
  return left.slice(0, end);
}

/**
 * The hooks object with ours in it, the user's untouched: each of ours replaces the one of ours
 * already there, in its place; else it fills a placeholder left by an uninstall; else it goes at
 * the end. Further copies of ours are taken out as withoutOurHooks does.
 */
export function withOurHooks(
  hooks: unknown,
  ours: readonly OurHook[],
  isOurs: (command: string) => boolean,
  places: HookPlaces = {},
): Json {
  const next: Json = hooks && typeof hooks === 'object' && !Array.isArray(hooks) ? { ...(hooks as Json) } : {};
  for (const hook of ours) {
    const groups = Array.isArray(next[hook.event]) ? [...(next[hook.event] as unknown[])] : [];
    const mine: Json = {
      ...(hook.matcher === undefined ? {} : { matcher: hook.matcher }),
      hooks: [{ type: 'command', command: hook.command, timeout: hook.timeout }],
    };
    const holdsOurs = (group: unknown) =>
      !!group &&
      typeof group === 'object' &&
      Array.isArray((group as Json).hooks) &&
      ((group as Json).hooks as unknown[]).some((inner) => isOurHook(inner, isOurs));
    let slot = groups.findIndex(holdsOurs);
    if (slot < 0 && places.keepPositions) slot = groups.findIndex(isPlaceholder);
    if (slot < 0) {
      next[hook.event] = [...groups, mine];
      continue;
    }
    // A user's hooks that shared our group stay in it, before ours; any other copy of ours goes.
    const old = groups[slot] as Json;
    const theirs = (old.hooks as unknown[]).filter((inner) => !isOurHook(inner, isOurs));
    const placed = theirs.length === 0 ? mine : { ...old, hooks: [...theirs, ...(mine.hooks as unknown[])] };
    next[hook.event] = settle(
      groups.map((group, index) => (index === slot ? placed : withoutOursIn(group, isOurs, places))),
      places,
    );
  }
  return next;
}

/** Reads in a row (25 ms apart) of a settings file that is not JSON before it is the user's to fix. */
export const HALF_WRITTEN_READS = 40;
export const HALF_WRITTEN_PAUSE_MS = 25;

/**
 * An agent's settings file as a JSON object: `{}` when there is none. One clear line, and nothing
 * changed, when it is not JSON or not an object: the user's file is never overwritten on a guess.
 * A file caught halfway through someone's in-place write (an editor's, the agent's) is read again
 * in a moment; one that stays broken for HALF_WRITTEN_READS reads is the user's to fix.
 */
export async function readSettingsObject(file: string, shown: string = file, syntax: SettingsSyntax = 'json'): Promise<Json> {
  for (let read = 1; ; read += 1) {
    let text: string;
    try {
      text = await readRegularText(file, { follow: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return {};
      if (NotRegularFileError.isInstance(error))
        throw new AiZenError('config', `${shown} is ${error.what}, not a regular file; nothing was changed`, { cause: error });
      throw new AiZenError('config', `${shown} cannot be read (${code ?? String(error)}); nothing was changed`, { cause: error });
    }
    try {
      return parseSettingsObject(text, shown, syntax);
    } catch (error) {
      if (!(error instanceof SettingsNotJson) || read >= HALF_WRITTEN_READS) throw error;
      await new Promise((resolve) => setTimeout(resolve, HALF_WRITTEN_PAUSE_MS));
    }
  }
}

/** A settings file that is not a JSON object (the user's to fix; a writer of its own may be halfway through it). */
export class SettingsNotJson extends AiZenError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('config', message, options);
  }
}

/** The text of a settings file as a JSON object (read as its agent reads it: `syntax`), or the one clear line that says why not. */
export function parseSettingsObject(text: string, shown: string, syntax: SettingsSyntax = 'json'): Json {
  let value: unknown;
  if (syntax === 'json') {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new SettingsNotJson(`${shown} is not valid JSON; fix it first (nothing was changed)`, { cause: error });
    }
  } else {
    const read = readJsonc(text, syntax);
    if (!read.ok)
      throw new SettingsNotJson(`${shown} is not valid ${SYNTAX_NAMES[syntax]} (${read.problem}); fix it first (nothing was changed)`);
    value = read.value;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new SettingsNotJson(`${shown} is not a JSON object; fix it first (nothing was changed)`);
  return value as Json;
}

/** What marks a hook command as ours: it ends in `hook <word> <event>` (whatever runs it: the shim, a checkout, the PATH's). */
export function ourHookMark(word: string): (command: string) => boolean {
  const mark = new RegExp(` hook ${word} (${HOOK_EVENTS.join('|')})$`);
  return (command) => mark.test(command);
}

/** The commands of ours in a hooks object of this shape (every event, every group). */
export function ourHookCommands(hooks: unknown, isOurs: (command: string) => boolean): string[] {
  if (!hooks || typeof hooks !== 'object' || Array.isArray(hooks)) return [];
  return Object.values(hooks as Json).flatMap((groups) =>
    Array.isArray(groups)
      ? groups.flatMap((group: unknown) => {
          const inner = (group as Json | null)?.hooks;
          return Array.isArray(inner)
            ? inner.map(commandOf).filter((command): command is string => command !== null && isOurs(command))
            : [];
        })
      : [],
  );
}

/** A hook's stdin in Claude Code's shape, taken as it is (Claude Code, Codex, Qwen Code, Copilot). */
export function hookInputAsItIs(raw: unknown): HookInput | null {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as HookInput) : null;
}

/** The daemon's answer as it is: the agent reads Claude Code's shape. */
export function hookOutputAsItIs(_event: HookEvent, output: Record<string, unknown>): Record<string, unknown> {
  return output;
}
