// Claude Code's hooks as `install-hooks claude` puts them in (agent-hooks.ts): the three hooks and
// the permission rule in the project's `.claude/settings.local.json` (claude-settings.ts), the MCP
// server in `.mcp.json` (claude-mcp.ts) and the statusline (claude-statusline.ts). Doctor also
// reads the shared `.claude/settings.json`, where install never writes: a hook of ours there names
// this machine's paths in a committed file.
import path from 'node:path';
import type { AgentHooks } from '../agent-hooks.js';
import { hookGroupsFile, hookInputAsItIs, hookOutputAsItIs, ourHookMark } from '../hook-groups.js';
import { installClaudeMcp, uninstallClaudeMcp } from './claude-mcp.js';
import { HANDOFF_PERMISSION, installClaudeHooks, uninstallClaudeHooks } from './claude-settings.js';
import { installClaudeStatusLine, uninstallClaudeStatusLine } from './claude-statusline.js';

const LOCAL = path.join('.claude', 'settings.local.json');
const SHARED = path.join('.claude', 'settings.json');

export const claudeHooks: AgentHooks = {
  scope: 'repo',
  async install({ root, env, command }) {
    const result = await installClaudeHooks(root, command, env);
    return {
      ...result,
      what: ` (Stop, PreCompact, SessionStart), and the permission rule ${HANDOFF_PERMISSION} so Claude Code may write its handoff document there`,
      notes: [],
    };
  },
  uninstall: ({ root, env }) => uninstallClaudeHooks(root, env),
  settingsFiles: ({ root }) =>
    root === null
      ? []
      : [
          hookGroupsFile(path.join(root, LOCAL), LOCAL, false, ourHookMark('claude')),
          hookGroupsFile(path.join(root, SHARED), SHARED, true, ourHookMark('claude')),
        ],
  readInput: hookInputAsItIs,
  writeOutput: hookOutputAsItIs,
  mcp: {
    install: ({ root, env, shim }) => installClaudeMcp(root, shim, env),
    uninstall: ({ root, env }) => uninstallClaudeMcp(root, env),
  },
  statusLine: {
    install: ({ root, env, command }) => installClaudeStatusLine(root, command, env),
    uninstall: ({ root, env }) => uninstallClaudeStatusLine(root, env),
    shows: 'context %, where ai-zen hands off, where Claude compacts, the last document',
  },
  trust: null,
};
