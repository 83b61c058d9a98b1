// ai-zen's hooks for GitHub Copilot CLI, in the project's own `.github/copilot/settings.local.json`
// (its `hooks` key; the local file: the commands name this machine's paths, and `install-hooks`
// keeps it out of git). Copilot's hook events in their PascalCase spelling (`Stop`, `PreCompact`,
// `SessionStart`) get Claude Code's input on stdin (`hook_event_name`, `session_id`,
// `transcript_path`, `stop_hook_active`) and take its answer (`{"decision":"block","reason"}` from
// Stop enqueues the reason as the next prompt) — checked with the real client, 1.0.102 — so the
// daemon's answers pass through as they are. Each entry is Copilot's flat shape
// (`{type: "command", bash, timeoutSec}`). Copilot runs a repo's hooks only in a folder the person
// trusted (its first-run prompt, `--trust-folder`, or COPILOT_ALLOW_ALL=true).
import path from 'node:path';
import type { Env } from '../../../paths.js';
import { HOOK_EVENTS, type HookEvent, type HookSettingsFile } from '../agent-hooks.js';
import { type Json, ourHookMark, readSettingsObject } from '../hook-groups.js';
import { updateSettingsFile } from '../settings-file.js';

export const COPILOT_SETTINGS = path.join('.github', 'copilot', 'settings.local.json');
/** What marks a hook command as ours. */
const isOurCommand = ourHookMark('copilot');
const commandOf = (entry: unknown): string | null => {
  const command = typeof entry === 'object' && entry !== null ? (entry as Json).bash : undefined;
  return typeof command === 'string' ? command : null;
};
const isOurs = (entry: unknown): boolean => {
  const command = commandOf(entry);
  return command !== null && isOurCommand(command);
};
/** Seconds Copilot gives each hook (PreCompact writes the offline document within it). */
const TIMEOUTS: Record<HookEvent, number> = { Stop: 60, PreCompact: 60, SessionStart: 10 };

function withoutOurs(before: Json): Json {
  const next: Json = { ...before };
  const hooks = typeof next.hooks === 'object' && next.hooks !== null && !Array.isArray(next.hooks) ? { ...(next.hooks as Json) } : null;
  if (!hooks) return next;
  for (const [event, entries] of Object.entries(hooks)) {
    if (!Array.isArray(entries)) continue;
    const kept = entries.filter((entry) => !isOurs(entry));
    if (kept.length === entries.length) continue;
    if (kept.length === 0) delete hooks[event];
    else hooks[event] = kept;
  }
  if (Object.keys(hooks).length === 0) delete next.hooks;
  else next.hooks = hooks;
  return next;
}

function withOurs(before: Json, command: (event: HookEvent) => string): Json {
  const cleared = withoutOurs(before);
  const hooks = { ...((cleared.hooks as Json | undefined) ?? {}) };
  for (const event of HOOK_EVENTS) {
    const entries = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    hooks[event] = [...entries, { type: 'command', bash: command(event), timeoutSec: TIMEOUTS[event] }];
  }
  return { ...cleared, hooks };
}

function update(root: string, env: Env, change: (before: Json) => Json): Promise<{ file: string; changed: boolean }> {
  return updateSettingsFile({ root, name: COPILOT_SETTINGS, shown: COPILOT_SETTINGS, env, change });
}

export async function installCopilotHooks(input: {
  readonly root: string;
  readonly env: Env;
  readonly command: (event: HookEvent) => string;
}): Promise<{ file: string; changed: boolean; what: string; notes: readonly string[] }> {
  const result = await update(input.root, input.env, (before) => withOurs(before, input.command));
  return {
    ...result,
    what: '',
    notes: ['  Copilot runs them in a folder you trusted (its first-run question; `copilot --trust-folder` for one -p run)'],
  };
}

export function uninstallCopilotHooks(input: { readonly root: string; readonly env: Env }): Promise<{ file: string; changed: boolean }> {
  return update(input.root, input.env, withoutOurs);
}

/** Our Stop hook is in this repo's settings.local.json. */
export async function copilotHooksInstalled(root: string): Promise<boolean> {
  try {
    const hooks = (await readSettingsObject(path.join(root, COPILOT_SETTINGS))).hooks as Json | undefined;
    return Array.isArray(hooks?.Stop) && hooks.Stop.some(isOurs);
  } catch {
    return false;
  }
}

/** Where doctor looks for ours: this repo's settings.local.json, each entry's `bash`. */
export function copilotSettingsFiles(root: string | null): HookSettingsFile[] {
  if (root === null) return [];
  const ours = async (settings: Json) => {
    const hooks = typeof settings.hooks === 'object' && settings.hooks !== null ? Object.values(settings.hooks as Json) : [];
    const entries = hooks.flatMap((list) => (Array.isArray(list) ? list : []));
    return { commands: entries.filter(isOurs).map((entry) => commandOf(entry)!), problems: [] };
  };
  return [{ file: path.join(root, COPILOT_SETTINGS), shown: COPILOT_SETTINGS, shared: false, ours }];
}
