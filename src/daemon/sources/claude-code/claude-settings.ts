// ai-zen's hooks in a project's `.claude/settings.local.json` (X3, issue 10 §5): Stop, PreCompact
// and SessionStart, each running `ai-zen-daemon hook claude <event>`, and the one permission rule
// Claude Code needs to let its Write tool create the handoff document without asking. Merged into
// what is there (the user's own hooks and rules are never touched), idempotent; uninstall removes
// only what is ours — recognised by the command's `hook claude` words, and the rule only when
// ai-zen added it (a rule the user had stays).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { hashRealPath } from '../../../lock/lock-names.js';
import { aiZenHome, type Env } from '../../../paths.js';
import { hasOurHook, ourHookMark, readSettingsObject, type Json, withOurHooks, withoutOurHooks } from '../hook-groups.js';
import { updateSettingsFile } from '../settings-file.js';

export const HANDOFF_PERMISSION = 'Edit(.ai-zen/handoffs/**)';
export const HOOK_EVENTS = ['Stop', 'PreCompact', 'SessionStart'] as const;
export type ClaudeHookEvent = (typeof HOOK_EVENTS)[number];

const SETTINGS = path.join('.claude', 'settings.local.json');

export function claudeSettingsPath(root: string): string {
  return path.join(root, SETTINGS);
}

/** The matcher each event gets: SessionStart only for a fresh start, /clear and a compaction. */
const MATCHERS: Record<ClaudeHookEvent, string | undefined> = { Stop: undefined, PreCompact: '', SessionStart: 'startup|clear|compact' };
/** Seconds Claude Code gives the hook (PreCompact writes the offline document within it). */
const TIMEOUTS: Record<ClaudeHookEvent, number> = { Stop: 60, PreCompact: 60, SessionStart: 10 };

const readSettings = (root: string): Promise<Json> => readSettingsObject(claudeSettingsPath(root), SETTINGS);

const isOurs = ourHookMark('claude');

/** The settings without our hooks, and without the rule when it is ours to take (`ruleIsOurs`). */
export function withoutOurs(settings: Json, ruleIsOurs = true): Json {
  const next: Json = { ...settings };
  if (next.hooks && typeof next.hooks === 'object') {
    const hooks = withoutOurHooks(next.hooks, isOurs);
    if (Object.keys(hooks).length === 0) delete next.hooks;
    else next.hooks = hooks;
  }
  if (ruleIsOurs && next.permissions && typeof next.permissions === 'object') {
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

export function hasHandoffRule(settings: Json): boolean {
  const permissions = settings.permissions;
  return (
    !!permissions &&
    typeof permissions === 'object' &&
    Array.isArray((permissions as Json).allow) &&
    ((permissions as Json).allow as unknown[]).includes(HANDOFF_PERMISSION)
  );
}

/** The settings with our hooks (in place of ours, else after the user's) and the rule (added once, where the user had it if they did). */
export function withOurs(settings: Json, command: (event: ClaudeHookEvent) => string): Json {
  const hooks = withOurHooks(
    settings.hooks,
    HOOK_EVENTS.map((event) => ({
      event,
      ...(MATCHERS[event] === undefined ? {} : { matcher: MATCHERS[event] }),
      command: command(event),
      timeout: TIMEOUTS[event],
    })),
    isOurs,
  );
  if (hasHandoffRule(settings)) return { ...settings, hooks };
  const permissions: Json = settings.permissions && typeof settings.permissions === 'object' ? { ...(settings.permissions as Json) } : {};
  const allow = Array.isArray(permissions.allow) ? [...(permissions.allow as unknown[])] : [];
  allow.push(HANDOFF_PERMISSION);
  return { ...settings, permissions: { ...permissions, allow }, hooks };
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

/**
 * Whether ai-zen added the permission rule in this repo (a mark in `$AI_ZEN_HOME/claude-rules/`):
 * a rule the user had before is theirs, and uninstall leaves it (issue 22, Low). Kept outside the
 * settings file so Claude Code reads nothing of ours it does not know.
 */
function ruleMark(root: string, env: Env): string {
  return path.join(aiZenHome(env), 'claude-rules', hashRealPath(root, 24));
}

/** Merges ours in (locked, compare-and-swap, mode kept: settings-file.ts); returns what changed. */
export async function installClaudeHooks(
  root: string,
  command: (event: ClaudeHookEvent) => string,
  env: Env,
): Promise<{ file: string; changed: boolean }> {
  let addedRule = false;
  const result = await updateSettingsFile({
    root,
    name: SETTINGS,
    shown: SETTINGS,
    env,
    change: (before) => {
      addedRule = !hasHandoffRule(before);
      return withOurs(before, command);
    },
  });
  if (addedRule) {
    await fs.mkdir(path.dirname(ruleMark(root, env)), { recursive: true, mode: 0o700 });
    await fs.writeFile(ruleMark(root, env), `${root}\n`);
  }
  return result;
}

export async function uninstallClaudeHooks(root: string, env: Env): Promise<{ file: string; changed: boolean }> {
  const mark = ruleMark(root, env);
  const ruleIsOurs = await fs.stat(mark).then(
    () => true,
    () => false,
  );
  const result = await updateSettingsFile({
    root,
    name: SETTINGS,
    shown: SETTINGS,
    env,
    change: (before) => withoutOurs(before, ruleIsOurs),
  });
  await fs.rm(mark, { force: true });
  return result;
}
