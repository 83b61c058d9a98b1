// Issue 23 §3: `ai-zen-daemon mcp` registered for Claude Code by `install-hooks claude`. Claude Code
// reads a project's MCP servers from `.mcp.json` at the repo's root, and starts one without asking
// (in `-p` mode too) once the project's settings approve it by name (`enabledMcpjsonServers`);
// the permission rule `mcp__ai-zen` lets its tools run without a prompt (they only read). The
// server runs through the stable shim (hook-shim.ts), like the hooks. Uninstall removes what is
// ours only: the `ai-zen` server when it runs the shim's `mcp`, its approval and its rule.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Env } from '../../../paths.js';
import type { Json } from '../hook-groups.js';
import { updateSettingsFile } from '../settings-file.js';

export const MCP_SERVER_NAME = 'ai-zen';
export const MCP_PERMISSION = `mcp__${MCP_SERVER_NAME}`;
export const MCP_FILE = '.mcp.json';
const SETTINGS = path.join('.claude', 'settings.local.json');

const objectAt = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? { ...(value as Json) } : {});
const listAt = (value: unknown): unknown[] => (Array.isArray(value) ? [...value] : []);

function isOurServer(entry: unknown): boolean {
  const server = objectAt(entry);
  return typeof server.command === 'string' && Array.isArray(server.args) && server.args.length === 1 && server.args[0] === 'mcp';
}

function withServer(before: Json, shim: string): Json {
  const servers = objectAt(before.mcpServers);
  // A server of the user's named ai-zen is theirs: it stays, and install says so.
  if (servers[MCP_SERVER_NAME] !== undefined && !isOurServer(servers[MCP_SERVER_NAME])) return before;
  servers[MCP_SERVER_NAME] = { type: 'stdio', command: shim, args: ['mcp'] };
  return { ...before, mcpServers: servers };
}

function withoutServer(before: Json): Json {
  const servers = objectAt(before.mcpServers);
  if (!isOurServer(servers[MCP_SERVER_NAME])) return before;
  delete servers[MCP_SERVER_NAME];
  const next: Json = { ...before, mcpServers: servers };
  if (Object.keys(servers).length === 0) delete next.mcpServers;
  return next;
}

function withApproval(before: Json): Json {
  const enabled = listAt(before.enabledMcpjsonServers);
  if (!enabled.includes(MCP_SERVER_NAME)) enabled.push(MCP_SERVER_NAME);
  const permissions = objectAt(before.permissions);
  const allow = listAt(permissions.allow);
  if (!allow.includes(MCP_PERMISSION)) allow.push(MCP_PERMISSION);
  return { ...before, enabledMcpjsonServers: enabled, permissions: { ...permissions, allow } };
}

function withoutApproval(before: Json): Json {
  const next: Json = { ...before };
  const enabled = listAt(before.enabledMcpjsonServers).filter((name) => name !== MCP_SERVER_NAME);
  if (enabled.length === 0) delete next.enabledMcpjsonServers;
  else next.enabledMcpjsonServers = enabled;
  if (before.permissions && typeof before.permissions === 'object') {
    const permissions = objectAt(before.permissions);
    const allow = listAt(permissions.allow).filter((rule) => rule !== MCP_PERMISSION);
    if (allow.length === 0) delete permissions.allow;
    else permissions.allow = allow;
    if (Object.keys(permissions).length === 0) delete next.permissions;
    else next.permissions = permissions;
  }
  return next;
}

export interface McpInstall {
  readonly file: string;
  readonly changed: boolean;
  /** The user has a server of their own named ai-zen: ours is not added. */
  readonly taken: boolean;
}

export async function installClaudeMcp(root: string, shim: string, env: Env): Promise<McpInstall> {
  let taken = false;
  const server = await updateSettingsFile({
    root,
    name: MCP_FILE,
    shown: MCP_FILE,
    env,
    change: (before) => {
      const next = withServer(before, shim);
      taken = next === before && before.mcpServers !== undefined && !isOurServer(objectAt(before.mcpServers)[MCP_SERVER_NAME]);
      return next;
    },
  });
  if (taken) return { file: server.file, changed: false, taken };
  const approval = await updateSettingsFile({ root, name: SETTINGS, shown: SETTINGS, env, change: withApproval });
  return { file: server.file, changed: server.changed || approval.changed, taken };
}

export async function uninstallClaudeMcp(root: string, env: Env): Promise<{ file: string; changed: boolean }> {
  const exists = (name: string) =>
    fs.stat(path.join(root, name)).then(
      () => true,
      () => false,
    );
  let changed = false;
  if (await exists(MCP_FILE)) {
    const server = await updateSettingsFile({ root, name: MCP_FILE, shown: MCP_FILE, env, change: withoutServer });
    changed ||= server.changed;
    // A .mcp.json that held only ours goes with it.
    if (server.changed && (await fs.readFile(server.file, 'utf8')).trim() === '{}') await fs.rm(server.file, { force: true });
  }
  if (await exists(SETTINGS)) {
    const approval = await updateSettingsFile({ root, name: SETTINGS, shown: SETTINGS, env, change: withoutApproval });
    changed ||= approval.changed;
  }
  return { file: path.join(root, MCP_FILE), changed };
}
