// The `hooks` object that Claude Code's settings and Codex's hooks.json share (X3, issue 10 §5):
// `{ "<Event>": [{ "matcher"?: "…", "hooks": [{ "type": "command", "command": "…", "timeout": N }] }] }`.
// ai-zen's entries are merged in after the user's own and recognised by their command alone, so
// installing twice changes nothing and uninstalling removes ours and nothing else.
import { promises as fs } from 'node:fs';
import { AiZenError } from '../../errors.js';

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

/** The hooks object without our entries; groups left empty by that are dropped, the user's stay as they were. */
export function withoutOurHooks(hooks: unknown, isOurs: (command: string) => boolean): Json {
  const next: Json = hooks && typeof hooks === 'object' && !Array.isArray(hooks) ? { ...(hooks as Json) } : {};
  const ours = (hook: unknown) => {
    const command = commandOf(hook);
    return command !== null && isOurs(command);
  };
  for (const [event, groups] of Object.entries(next)) {
    if (!Array.isArray(groups)) continue;
    const kept = groups
      .map((group: unknown) => {
        if (!group || typeof group !== 'object' || !Array.isArray((group as Json).hooks)) return group;
        const inner = ((group as Json).hooks as unknown[]).filter((hook) => !ours(hook));
        if (inner.length === ((group as Json).hooks as unknown[]).length) return group;
        return inner.length === 0 ? null : { ...(group as Json), hooks: inner };
      })
      .filter((group) => group !== null);
    if (kept.length === 0) delete next[event];
    else next[event] = kept;
  }
  return next;
}

/** The hooks object with ours appended (whatever of ours was there before replaced). */
export function withOurHooks(hooks: unknown, ours: readonly OurHook[], isOurs: (command: string) => boolean): Json {
  const next = withoutOurHooks(hooks, isOurs);
  for (const hook of ours) {
    const groups = Array.isArray(next[hook.event]) ? [...(next[hook.event] as unknown[])] : [];
    groups.push({
      ...(hook.matcher === undefined ? {} : { matcher: hook.matcher }),
      hooks: [{ type: 'command', command: hook.command, timeout: hook.timeout }],
    });
    next[hook.event] = groups;
  }
  return next;
}

/** Whether `event` has a hook of ours. */
export function hasOurHook(hooks: unknown, event: string, isOurs: (command: string) => boolean): boolean {
  const groups = hooks && typeof hooks === 'object' ? (hooks as Json)[event] : undefined;
  return (
    Array.isArray(groups) &&
    groups.some(
      (group) =>
        Array.isArray((group as Json | null)?.hooks) &&
        ((group as Json).hooks as unknown[]).some((hook) => {
          const command = commandOf(hook);
          return command !== null && isOurs(command);
        }),
    )
  );
}

/**
 * An agent's settings file as a JSON object: `{}` when there is none. One clear line, and nothing
 * changed, when it is not JSON or not an object: the user's file is never overwritten on a guess.
 */
export async function readSettingsObject(file: string, shown: string = file): Promise<Json> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    throw new AiZenError('config', `${shown} cannot be read (${code ?? String(error)}); nothing was changed`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AiZenError('config', `${shown} is not valid JSON; fix it first (nothing was changed)`, { cause: error });
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new AiZenError('config', `${shown} is not a JSON object; fix it first (nothing was changed)`);
  return value as Json;
}
