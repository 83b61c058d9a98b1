// Codex's hooks as `install-hooks codex` puts them (agent-hooks.ts), all in the user's
// `${CODEX_HOME:-~/.codex}`, one install for every repo: Stop, PreCompact and SessionStart in
// hooks.json — Codex's own file for command hooks, in Claude Code's shape — each running
// `ai-zen-daemon hook codex <event>` (kit/settings-hooks.ts); the MCP server in config.toml; and
// `--trust`, through Codex's own app-server (codex-hook-trust.ts). The user's files and not the
// project's `.codex/`, because Codex reads a project's hooks only in a project the user has trusted,
// the file would sit in the repo with this machine's paths in it, and each repo's hooks would need
// their own trust; in the user's file one trust covers every repo, and in a repo without a running
// daemon the hook prints nothing. Neither install nor uninstall moves a hook of the user's (Codex
// would call it modified and skip it).
//
// The MCP entry is `[mcp_servers.ai-zen]`, a block between two comment lines of ours
// (kit/settings-entry.ts), with the same compare-and-swap as the JSON settings, since Codex writes
// config.toml itself; a table of the user's named ai-zen is never replaced. Codex starts an MCP
// server with a few variables only: `env_vars` passes on the ones that say where ai-zen and the
// agents keep their files (a test's, or a user's who moved them).
import { AiZenError } from '../../../errors.js';
import { codexHomeFolder, type Env } from '../../../paths.js';
import type { AgentHooks, McpEntry } from '../agent-hooks.js';
import { hookInputAsItIs, hookOutputAsItIs, ourHookMark } from '../hook-groups.js';
import { settingsEntry } from '../kit/settings-entry.js';
import { CLAUDE_SHAPE, settingsHooks } from '../kit/settings-hooks.js';
import { forgetTrust, ourTrustKeys } from './codex-trust-entries.js';

const codexSettings = settingsHooks({
  ...CLAUDE_SHAPE,
  word: 'codex',
  home: codexHomeFolder,
  file: 'hooks.json',
  // Codex keeps a hook's trust by its place.
  keepPositions: true,
  what: ' (Stop, PreCompact, SessionStart), for Codex sessions in every repo (in a repo without a running daemon they do nothing)',
});

/** Our Stop hook is in the user's hooks.json (whether Codex trusts it is another matter). */
export const codexHooksInstalled = (env: Env) => codexSettings.installed({ root: null, env });

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
  file: ({ root, env }) => server.fileOf(root, env),
  async install({ root, env, shim }) {
    const added = await server.install(root, env, { command: shim, args: ['mcp'], env_vars: PASSED_ON });
    return { file: added.file, changed: added.changed, taken: added.theirs !== undefined };
  },
  uninstall: ({ root, env }) => server.uninstall(root, env),
};

export const codexHooks: AgentHooks = {
  ...codexSettings.hooks,
  // The trust Codex keeps for ours goes with them: keyed by their places, read before they go.
  async uninstall(input) {
    const keys = await ourTrustKeys(input.env);
    const result = await codexSettings.hooks.uninstall(input);
    await forgetTrust(input.env, keys);
    return result;
  },
  readInput: hookInputAsItIs,
  writeOutput: hookOutputAsItIs,
  mcp: codexMcp,
  statusLine: null,
  trust: {
    option: "trust ai-zen's hooks (and only those) through Codex's own app-server, as /hooks in Codex would",
    async trust({ cwd, env, version }) {
      // Loaded here only: it starts Codex's app-server, which nothing else does.
      const { trustCodexHooks } = await import('./codex-hook-trust.js');
      const codex = env.AI_ZEN_CODEX_BIN || 'codex';
      const trusted = await trustCodexHooks({ codex, cwd, env, version }, ourHookMark('codex')).catch((error: unknown) => {
        throw new AiZenError('config', `could not trust the hooks in Codex: ${error instanceof Error ? error.message : String(error)}`);
      });
      return trusted.trusted.length > 0
        ? `Codex now trusts ai-zen's ${trusted.trusted.length} hooks (and no other)`
        : "Codex already trusted ai-zen's hooks";
    },
    hint: "Codex runs a hook only once you trust it: open codex, type /hooks and trust ai-zen's three hooks — or run: ai-zen-daemon install-hooks codex --trust",
  },
};
