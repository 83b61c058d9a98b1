// `ai-zen-daemon mcp` registered for Claude Code by `install-hooks claude`. Claude Code reads a
// project's MCP servers from `.mcp.json` at the repo's root, and starts one without asking (in `-p`
// mode too) once the project's settings approve it by name (`enabledMcpjsonServers`); the permission
// rule `mcp__ai-zen` lets its tools run without a prompt (they only read). The server runs through
// the stable shim (hook-shim.ts), like the hooks. Uninstall removes what is ours only: the `ai-zen`
// server when it runs the shim's `mcp` (kit/settings-entry.ts), its approval and its rule.
import path from 'node:path';
import type { McpEntry } from '../agent-hooks.js';
import type { Json } from '../hook-groups.js';
import { fileExists, settingsEntry, withListItem, withoutListItem } from '../kit/settings-entry.js';
import { ALLOW, CLAUDE_LOCAL_SETTINGS, claudeSettings } from './claude-settings.js';

const isOurServer = (entry: unknown): boolean => {
  const { command, args } = (entry ?? {}) as Json;
  return typeof command === 'string' && Array.isArray(args) && args.length === 1 && args[0] === 'mcp';
};

const server = settingsEntry({
  home: null,
  file: '.mcp.json',
  at: ['mcpServers', 'ai-zen'],
  format: { kind: 'json', isOurs: isOurServer },
  // A .mcp.json that held only ours goes with it.
  dropEmpty: true,
});

/** The approval by name and the permission rule, in the project's settings. */
const APPROVALS = [
  { at: ['enabledMcpjsonServers'], item: 'ai-zen' },
  { at: ALLOW, item: 'mcp__ai-zen' },
];

export const claudeMcp: McpEntry = {
  async install({ root, env, shim }) {
    const added = await server.install(root, env, { type: 'stdio', command: shim, args: ['mcp'] });
    if (added.theirs !== undefined) return { file: added.file, changed: false, taken: true };
    const approved = await claudeSettings.update(root, env, (before) =>
      APPROVALS.reduce((settings, { at, item }) => withListItem(settings, at, item), before),
    );
    return { file: added.file, changed: added.changed || approved.changed, taken: false };
  },
  async uninstall({ root, env }) {
    const removed = await server.uninstall(root, env);
    const unapproved = (await fileExists(path.join(root, CLAUDE_LOCAL_SETTINGS)))
      ? await claudeSettings.update(root, env, (before) =>
          APPROVALS.reduce((settings, { at, item }) => withoutListItem(settings, at, item), before),
        )
      : { changed: false };
    return { file: removed.file, changed: removed.changed || unapproved.changed };
  },
};
