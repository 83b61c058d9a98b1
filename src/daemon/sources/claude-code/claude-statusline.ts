// ai-zen's statusline in Claude Code: `statusLine` in the project's `.claude/settings.local.json`,
// beside ai-zen's hooks, running `<shim> statusline`. Never in place of a statusline the user has:
// Claude shows the statusLine of the most specific settings file (local, then the project's
// settings.json, then the user's), so one in any of them is the user's choice, and install leaves it
// and says how to chain it (`statusline --chain '<their command>'`). Uninstall removes only ours —
// recognised by its exact command, so a chain the user made stays.
import path from 'node:path';
import type { StatusLineEntry, StatusLineInstall } from '../agent-hooks.js';
import { readSettingsObject, type Json } from '../hook-groups.js';
import { settingsEntry } from '../kit/settings-entry.js';
import { claudeConfigDir } from './claude-paths.js';
import { CLAUDE_LOCAL_SETTINGS } from './claude-settings.js';

/** `…/ai-zen-daemon statusline` and nothing after it (the shim's path may be quoted). */
const OURS = /ai-zen-daemon'? statusline$/;
/** A statusline that already runs ours after the user's own command. */
const CHAINED = /ai-zen-daemon'? statusline --chain[ =]/;

const commandOf = (value: unknown): string | null => {
  const command = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json).command : undefined;
  return typeof command === 'string' ? command : null;
};
const isOurStatusLine = (value: unknown): boolean => OURS.test(commandOf(value)?.trim() ?? '');

const line = settingsEntry({
  home: null,
  file: CLAUDE_LOCAL_SETTINGS,
  at: ['statusLine'],
  format: { kind: 'json', isOurs: isOurStatusLine },
  dropEmpty: false,
});

function theirs(file: string, value: unknown): StatusLineInstall {
  const command = commandOf(value) ?? JSON.stringify(value);
  return { state: 'theirs', file, command, chained: CHAINED.test(command) };
}

export const claudeStatusLine: StatusLineEntry = {
  async install({ root, env, command }) {
    const user = path.join(claudeConfigDir(env), 'settings.json');
    for (const [file, shown] of [
      [path.join(root, CLAUDE_LOCAL_SETTINGS), CLAUDE_LOCAL_SETTINGS],
      [path.join(root, '.claude', 'settings.json'), path.join('.claude', 'settings.json')],
      [user, user],
    ] as const) {
      const { statusLine } = await readSettingsObject(file, shown);
      if (statusLine !== undefined && !isOurStatusLine(statusLine)) return theirs(shown, statusLine);
    }
    const added = await line.install(root, env, { type: 'command', command, padding: 0 });
    // One the user wrote since the look above: still theirs.
    if (added.theirs !== undefined) return theirs(CLAUDE_LOCAL_SETTINGS, added.theirs);
    return { state: added.changed ? 'installed' : 'already', file: CLAUDE_LOCAL_SETTINGS };
  },
  uninstall: ({ root, env }) => line.uninstall(root, env),
  shows: 'context %, where ai-zen hands off, where Claude compacts, the last document',
};
