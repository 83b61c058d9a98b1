// `ai-zen-daemon mcp` registered for Codex by `install-hooks codex`, as `[mcp_servers.ai-zen]` in
// the user's `${CODEX_HOME:-~/.codex}/config.toml` — the user's file, like the hooks
// (codex-hooks.ts): one entry serves every repo, and in each the server reads that repo. Written as
// a block between two comment lines of ours (kit/settings-entry.ts), with the same compare-and-swap
// as the JSON settings, since Codex writes this file itself; a table of the user's named ai-zen is
// never replaced. Codex starts an MCP server with a few variables only: `env_vars` passes on the
// ones that say where ai-zen and the agents keep their files (a test's, or a user's who moved them).
import { codexHomeFolder } from '../../../paths.js';
import type { McpEntry } from '../agent-hooks.js';
import { settingsEntry } from '../kit/settings-entry.js';

const PASSED_ON = ['AI_ZEN_HOME', 'CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'XDG_RUNTIME_DIR'];

const server = settingsEntry({
  home: codexHomeFolder,
  file: 'config.toml',
  at: ['mcp_servers', 'ai-zen'],
  format: {
    kind: 'toml',
    mark: '# >>> ai-zen: its MCP server (ai-zen-daemon install-hooks codex; uninstall-hooks codex removes this block)',
  },
  dropEmpty: false,
});

export const codexMcp: McpEntry = {
  async install({ root, env, shim }) {
    const added = await server.install(root, env, { command: shim, args: ['mcp'], env_vars: PASSED_ON });
    return { file: added.file, changed: added.changed, taken: added.theirs !== undefined };
  },
  uninstall: ({ root, env }) => server.uninstall(root, env),
};
