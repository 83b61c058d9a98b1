// ai-zen's hooks for Codex CLI (X3, issue 10 §5), in the user's `${CODEX_HOME:-~/.codex}/hooks.json`
// — Codex's own file for command hooks, in the same shape as Claude Code's — : Stop, PreCompact and
// SessionStart, each running `ai-zen-daemon hook codex <event>`. The user's file and not the
// project's `.codex/hooks.json`, because Codex reads a project's hooks only in a project the user
// has trusted, the file would sit in the repo with this machine's paths in it, and each repo's
// hooks would need their own trust; in the user's file one trust covers every repo, and in a repo
// without a running daemon the hook prints nothing. Merged into what is there, idempotent;
// uninstall removes only ours (recognised by the command's `hook codex` words), and neither moves
// a hook of the user's (Codex would call it modified and skip it).
//
// Codex runs a hook only once the user trusted it (checked with 0.171: an untrusted hook is skipped
// without a word): `/hooks` in the Codex TUI, or `install-hooks codex --trust` (codex-hook-trust.ts).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { codexHomeFolder, type Env } from '../../../paths.js';
import { hasOurHook, type Json, type OurHook, ourHookMark, readSettingsObject, withOurHooks, withoutOurHooks } from '../hook-groups.js';
import { updateSettingsFile } from '../settings-file.js';

export const CODEX_HOOK_EVENTS = ['Stop', 'PreCompact', 'SessionStart'] as const;
export type CodexHookEvent = (typeof CODEX_HOOK_EVENTS)[number];

const HOOKS_FILE = 'hooks.json';
/** What marks a hook command as ours. */
export const isOurCodexHook = ourHookMark('codex');
/** Seconds Codex gives each hook (PreCompact writes the offline document within it). */
const TIMEOUTS: Record<CodexHookEvent, number> = { Stop: 60, PreCompact: 60, SessionStart: 10 };

export function codexHooksPath(env: Env): string {
  return path.join(codexHomeFolder(env), HOOKS_FILE);
}

const readHooksFile = (env: Env): Promise<Json> => readSettingsObject(codexHooksPath(env));

function ourHooks(command: (event: CodexHookEvent) => string): OurHook[] {
  return CODEX_HOOK_EVENTS.map((event) => ({ event, command: command(event), timeout: TIMEOUTS[event] }));
}

/** Codex keeps a hook's trust by its place: ours come and go without moving the user's (issue 22 §7). */
const PLACES = { keepPositions: true } as const;

function withoutOurs(file: Json): Json {
  const next: Json = { ...file };
  const hooks = withoutOurHooks(next.hooks, isOurCodexHook, PLACES);
  if (Object.keys(hooks).length === 0) delete next.hooks;
  else next.hooks = hooks;
  return next;
}

async function updateHooksFile(env: Env, change: (before: Json) => Json): Promise<{ file: string; changed: boolean }> {
  const home = codexHomeFolder(env);
  await fs.mkdir(home, { recursive: true, mode: 0o700 });
  const result = await updateSettingsFile({ root: home, name: HOOKS_FILE, shown: codexHooksPath(env), env, change });
  return { file: codexHooksPath(env), changed: result.changed };
}

export function installCodexHooks(env: Env, command: (event: CodexHookEvent) => string): Promise<{ file: string; changed: boolean }> {
  return updateHooksFile(env, (before) => ({ ...before, hooks: withOurHooks(before.hooks, ourHooks(command), isOurCodexHook, PLACES) }));
}

export function uninstallCodexHooks(env: Env): Promise<{ file: string; changed: boolean }> {
  return updateHooksFile(env, withoutOurs);
}

/** Our Stop hook is in the user's hooks.json (whether Codex trusts it is another matter). */
export async function codexHooksInstalled(env: Env): Promise<boolean> {
  try {
    return hasOurHook((await readHooksFile(env)).hooks, 'Stop', isOurCodexHook);
  } catch {
    return false;
  }
}
