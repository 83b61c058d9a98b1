// ai-zen's statusline in Claude Code (issue 23 §2): `statusLine` in the project's
// `.claude/settings.local.json`, beside ai-zen's hooks, running `<shim> statusline`. Never in place
// of a statusline the user has: Claude shows the statusLine of the most specific settings file
// (local, then the project's settings.json, then the user's), so one in any of them is the user's
// choice, and install leaves it and says how to chain it (`statusline --chain '<their command>'`).
// Uninstall removes only ours — recognised by its exact command, so a chain the user made stays.
import path from 'node:path';
import type { Env } from '../../../paths.js';
import type { StatusLineInstall } from '../agent-hooks.js';
import { readSettingsObject, type Json } from '../hook-groups.js';
import { updateSettingsFile } from '../settings-file.js';
import { claudeConfigDir } from './claude-paths.js';

const LOCAL = path.join('.claude', 'settings.local.json');
const PROJECT = path.join('.claude', 'settings.json');
/** `…/ai-zen-daemon statusline` and nothing after it (the shim's path may be quoted). */
const OURS = /ai-zen-daemon'? statusline$/;
/** A statusline that already runs ours after the user's own command. */
const CHAINED = /ai-zen-daemon'? statusline --chain[ =]/;

export function isOurStatusLine(value: unknown): boolean {
  const command = commandOf(value);
  return command !== null && OURS.test(command.trim());
}

function commandOf(value: unknown): string | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const command = (value as Json).command;
  return typeof command === 'string' ? command : null;
}

/** The settings files whose statusLine Claude shows, the one it shows first. */
function settingsFiles(root: string, env: Env): { readonly file: string; readonly shown: string }[] {
  const user = path.join(claudeConfigDir(env), 'settings.json');
  return [
    { file: path.join(root, LOCAL), shown: LOCAL },
    { file: path.join(root, PROJECT), shown: PROJECT },
    { file: user, shown: user },
  ];
}

/** A statusLine that is not ours, in the first settings file that has one; null when there is none. */
async function theirStatusLine(root: string, env: Env): Promise<{ file: string; command: string; chained: boolean } | null> {
  for (const { file, shown } of settingsFiles(root, env)) {
    const settings = await readSettingsObject(file, shown);
    if (settings.statusLine === undefined || isOurStatusLine(settings.statusLine)) continue;
    const command = commandOf(settings.statusLine) ?? JSON.stringify(settings.statusLine);
    return { file: shown, command, chained: CHAINED.test(command) };
  }
  return null;
}

/** Ours in settings.local.json, unless the user has a statusline of their own anywhere Claude reads one. */
export async function installClaudeStatusLine(root: string, command: string, env: Env): Promise<StatusLineInstall> {
  const theirs = await theirStatusLine(root, env);
  if (theirs) return { state: 'theirs', ...theirs };
  type Theirs = { file: string; command: string; chained: boolean };
  const seen: { kept: Theirs | null } = { kept: null };
  const result = await updateSettingsFile({
    root,
    name: LOCAL,
    shown: LOCAL,
    env,
    change: (before) => {
      // One the user wrote since the look above: still theirs.
      seen.kept = null;
      if (before.statusLine !== undefined && !isOurStatusLine(before.statusLine)) {
        const theirCommand = commandOf(before.statusLine) ?? JSON.stringify(before.statusLine);
        seen.kept = { file: LOCAL, command: theirCommand, chained: CHAINED.test(theirCommand) };
        return before;
      }
      return { ...before, statusLine: { type: 'command', command, padding: 0 } };
    },
  });
  if (seen.kept) return { state: 'theirs', ...seen.kept };
  return { state: result.changed ? 'installed' : 'already', file: LOCAL };
}

/** Removes our statusLine from settings.local.json (a chain the user made, or their own, stays). */
export async function uninstallClaudeStatusLine(root: string, env: Env): Promise<{ file: string; changed: boolean }> {
  return updateSettingsFile({
    root,
    name: LOCAL,
    shown: LOCAL,
    env,
    change: (before) => {
      if (!isOurStatusLine(before.statusLine)) return before;
      const { statusLine: _ours, ...rest } = before;
      return rest;
    },
  });
}
