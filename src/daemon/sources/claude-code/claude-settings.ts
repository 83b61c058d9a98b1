// ai-zen's hooks in a project's `.claude/settings.local.json` (X3, issue 10 §5): Stop, PreCompact
// and SessionStart, each running `ai-zen-daemon hook claude <event>`, and the one permission rule
// Claude Code needs to let its Write tool create the handoff document without asking. Merged into
// what is there (the user's own hooks and rules are never touched), idempotent; uninstall removes
// only what is ours — recognised by the command's `hook claude` words and our exact rule.
import path from 'node:path';
import { writeFileInside } from '../../../fs/safe-write.js';
import { hasOurHook, readSettingsObject, type Json, withOurHooks, withoutOurHooks } from '../hook-groups.js';

export const HANDOFF_PERMISSION = 'Edit(.ai-zen/handoffs/**)';
export const HOOK_EVENTS = ['Stop', 'PreCompact', 'SessionStart'] as const;
export type ClaudeHookEvent = (typeof HOOK_EVENTS)[number];

const SETTINGS = path.join('.claude', 'settings.local.json');
/** What marks a hook command as ours. */
const MARK = / hook claude (Stop|PreCompact|SessionStart)$/;

export function claudeSettingsPath(root: string): string {
  return path.join(root, SETTINGS);
}

/** The matcher each event gets: SessionStart only for a fresh start, /clear and a compaction. */
const MATCHERS: Record<ClaudeHookEvent, string | undefined> = { Stop: undefined, PreCompact: '', SessionStart: 'startup|clear|compact' };
/** Seconds Claude Code gives the hook (PreCompact writes the offline document within it). */
const TIMEOUTS: Record<ClaudeHookEvent, number> = { Stop: 60, PreCompact: 60, SessionStart: 10 };

const readSettings = (root: string): Promise<Json> => readSettingsObject(claudeSettingsPath(root), SETTINGS);

const isOurs = (command: string) => MARK.test(command);

/** The settings without our entries (groups left empty by that are dropped; the user's stay). */
export function withoutOurs(settings: Json): Json {
  const next: Json = { ...settings };
  if (next.hooks && typeof next.hooks === 'object') {
    const hooks = withoutOurHooks(next.hooks, isOurs);
    if (Object.keys(hooks).length === 0) delete next.hooks;
    else next.hooks = hooks;
  }
  if (next.permissions && typeof next.permissions === 'object') {
    const permissions: Json = { ...(next.permissions as Json) };
    if (Array.isArray(permissions.allow)) {
      permissions.allow = (permissions.allow as unknown[]).filter((rule) => rule !== HANDOFF_PERMISSION);
      if ((permissions.allow as unknown[]).length === 0) delete permissions.allow;
    }
    if (Object.keys(permissions).length === 0) delete next.permissions;
    else next.permissions = permissions;
  }
  return next;
}

/** The settings with our hooks and rule, whatever of ours was there before replaced. */
export function withOurs(settings: Json, command: (event: ClaudeHookEvent) => string): Json {
  const next = withoutOurs(settings);
  const hooks = withOurHooks(
    next.hooks,
    HOOK_EVENTS.map((event) => ({
      event,
      ...(MATCHERS[event] === undefined ? {} : { matcher: MATCHERS[event] }),
      command: command(event),
      timeout: TIMEOUTS[event],
    })),
    isOurs,
  );
  const permissions: Json = next.permissions && typeof next.permissions === 'object' ? { ...(next.permissions as Json) } : {};
  const allow = Array.isArray(permissions.allow) ? [...(permissions.allow as unknown[])] : [];
  allow.push(HANDOFF_PERMISSION);
  return { ...next, permissions: { ...permissions, allow }, hooks };
}

export function hasOurHooks(settings: Json): boolean {
  return hasOurHook(settings.hooks, 'Stop', isOurs);
}

export async function claudeHooksInstalled(root: string): Promise<boolean> {
  try {
    return hasOurHooks(await readSettings(root));
  } catch {
    return false;
  }
}

/** Writes the merged settings (atomically, never through a symlink); returns what changed. */
export async function installClaudeHooks(
  root: string,
  command: (event: ClaudeHookEvent) => string,
): Promise<{ file: string; changed: boolean }> {
  const before = await readSettings(root);
  const after = withOurs(before, command);
  const changed = JSON.stringify(before) !== JSON.stringify(after);
  if (changed) await writeFileInside(root, SETTINGS, `${JSON.stringify(after, null, 2)}\n`);
  return { file: claudeSettingsPath(root), changed };
}

export async function uninstallClaudeHooks(root: string): Promise<{ file: string; changed: boolean }> {
  const before = await readSettings(root);
  const after = withoutOurs(before);
  const changed = JSON.stringify(before) !== JSON.stringify(after);
  if (changed) await writeFileInside(root, SETTINGS, `${JSON.stringify(after, null, 2)}\n`);
  return { file: claudeSettingsPath(root), changed };
}
