// `ai-zen-daemon mcp` registered for Claude Code by `install-hooks claude`. Claude Code reads a
// project's MCP servers from `.mcp.json` at the repo's root, and starts one without asking (in `-p`
// mode too) once the project's settings approve it by name (`enabledMcpjsonServers`); the permission
// rule `mcp__ai-zen` lets its tools run without a prompt (they only read). The server runs through
// the stable shim (hook-shim.ts), like the hooks. Uninstall removes what is ours only: the `ai-zen`
// server when it runs the shim's `mcp` (kit/settings-entry.ts), its approval and its rule. Ours is
// known by the shim's path, never by its name or `args: ["mcp"]`: a cloned repo's look-alike entry is
// not approved, and doctor names an approved entry that runs anything else.
import path from 'node:path';
import { readRegularText } from '../../../fs/open-regular-file.js';
import { hookShimPath, type Env } from '../../../paths.js';
import type { McpEntry } from '../agent-hooks.js';
import type { Json } from '../hook-groups.js';
import { fileExists, settingsEntry, withListItem, withoutListItem } from '../kit/settings-entry.js';
import { ALLOW, CLAUDE_LOCAL_SETTINGS, claudeSettings } from './claude-settings.js';

const isOurServer = (entry: unknown, env: Env): boolean => {
  const { command, args } = (entry ?? {}) as Json;
  return command === hookShimPath(env) && Array.isArray(args) && args.length === 1 && args[0] === 'mcp';
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
  file: ({ root, env }) => server.fileOf(root, env),
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

/** A JSON object read from a regular file of the repo, or null (none, not regular, not JSON). */
async function readJsonObject(file: string): Promise<Json | null> {
  const text = await readRegularText(file, { follow: true }).catch(() => null);
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
  } catch {
    return null;
  }
}

/**
 * What doctor says of the server Claude Code starts without asking: when the project's settings approve
 * `ai-zen` by name and `.mcp.json`'s `ai-zen` runs anything but the shim's `mcp` (a pull or a clone put
 * another command there), the line naming it; else null.
 */
export async function approvedMcpProblem(root: string, env: Env): Promise<string | null> {
  const approved = (await readJsonObject(path.join(root, CLAUDE_LOCAL_SETTINGS)))?.enabledMcpjsonServers;
  if (!Array.isArray(approved) || !approved.includes('ai-zen')) return null;
  const servers = (await readJsonObject(path.join(root, '.mcp.json')))?.mcpServers;
  const entry = servers && typeof servers === 'object' ? (servers as Json)['ai-zen'] : undefined;
  if (entry === undefined || isOurServer(entry, env)) return null;
  const { command, args } = (entry ?? {}) as Json;
  const runs = [command, ...(Array.isArray(args) ? args : [])].map((word) => JSON.stringify(word)).join(' ');
  return `${CLAUDE_LOCAL_SETTINGS} approves the MCP server ai-zen, which Claude Code then starts without asking, and .mcp.json's ai-zen runs ${runs}, not ai-zen's ${hookShimPath(env)} mcp`;
}
