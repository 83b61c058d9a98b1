// ai-zen's hooks for Qwen Code (X3, issue 24) in the project's own `.qwen/settings.json` — Qwen's
// workspace settings, whose `hooks` object has Claude Code's shape and events (checked with 0.24.4:
// Stop, PreCompact and SessionStart, the same stdin JSON with `transcript_path`, the same
// `{decision: "block", reason}` answer, timeouts in seconds) — each running
// `ai-zen-daemon hook qwen <event>`. Merged into what is there (the user's own hooks and settings
// are never touched), idempotent; uninstall removes only ours, recognised by the command's
// `hook qwen` words. The file keeps its mode (settings-file.ts).
import path from 'node:path';
import type { Env } from '../../../paths.js';
import type { HookEvent, HookSettingsFile } from '../agent-hooks.js';
import { hasOurHook, hookGroupsFile, type Json, ourHookMark, readSettingsObject, withOurHooks, withoutOurHooks } from '../hook-groups.js';
import { updateSettingsFile } from '../settings-file.js';

const SETTINGS = path.join('.qwen', 'settings.json');
/** What marks a hook command as ours. */
const isOurs = ourHookMark('qwen');

const EVENTS: readonly HookEvent[] = ['Stop', 'PreCompact', 'SessionStart'];
/** SessionStart only for a fresh start, /clear and a compaction (not a resume, which has its history). */
const MATCHERS: Record<HookEvent, string | undefined> = { Stop: undefined, PreCompact: '', SessionStart: 'startup|clear|compact' };
/** Seconds Qwen gives the hook (PreCompact writes the offline document within it). */
const TIMEOUTS: Record<HookEvent, number> = { Stop: 60, PreCompact: 60, SessionStart: 10 };

export function qwenSettingsPath(root: string): string {
  return path.join(root, SETTINGS);
}

export function withOurQwenHooks(settings: Json, command: (event: HookEvent) => string): Json {
  const hooks = withOurHooks(
    settings.hooks,
    EVENTS.map((event) => ({
      event,
      ...(MATCHERS[event] === undefined ? {} : { matcher: MATCHERS[event] }),
      command: command(event),
      timeout: TIMEOUTS[event],
    })),
    isOurs,
  );
  return { ...settings, hooks };
}

export function withoutOurQwenHooks(settings: Json): Json {
  const next: Json = { ...settings };
  const hooks = withoutOurHooks(next.hooks, isOurs);
  if (Object.keys(hooks).length === 0) delete next.hooks;
  else next.hooks = hooks;
  return next;
}

export function installQwenHooks(input: {
  readonly root: string;
  readonly env: Env;
  readonly command: (event: HookEvent) => string;
}): Promise<{ file: string; changed: boolean }> {
  return updateSettingsFile({
    root: input.root,
    name: SETTINGS,
    shown: SETTINGS,
    env: input.env,
    change: (before) => withOurQwenHooks(before, input.command),
  });
}

export function uninstallQwenHooks(input: { readonly root: string; readonly env: Env }): Promise<{ file: string; changed: boolean }> {
  return updateSettingsFile({ root: input.root, name: SETTINGS, shown: SETTINGS, env: input.env, change: withoutOurQwenHooks });
}

/** Our Stop hook is in the project's `.qwen/settings.json`: Qwen will let the session write its own document. */
export async function qwenHooksInstalled(root: string): Promise<boolean> {
  try {
    return hasOurHook((await readSettingsObject(qwenSettingsPath(root), SETTINGS)).hooks, 'Stop', isOurs);
  } catch {
    return false;
  }
}

/** Where doctor looks for ours: the project's `.qwen/settings.json`. */
export function qwenSettingsFiles(root: string | null): HookSettingsFile[] {
  return root === null ? [] : [hookGroupsFile(qwenSettingsPath(root), SETTINGS, false, isOurs)];
}
