// Codex's hooks as `install-hooks codex` puts them in (agent-hooks.ts): the three hooks in the
// user's hooks.json (codex-hooks.ts), one install for every repo; the MCP server in the user's
// config.toml (codex-mcp.ts); and `--trust`, through Codex's own app-server (codex-hook-trust.ts),
// since Codex runs a hook only once the person trusted it.
import type { AgentHooks } from '../agent-hooks.js';
import { hookInputAsItIs, hookOutputAsItIs } from '../hook-groups.js';
import { AiZenError } from '../../../errors.js';
import { codexSettings } from './codex-hooks.js';
import { codexMcp } from './codex-mcp.js';

export const codexHooks: AgentHooks = {
  ...codexSettings.hooks,
  readInput: hookInputAsItIs,
  writeOutput: hookOutputAsItIs,
  mcp: codexMcp,
  statusLine: null,
  trust: {
    option: "trust ai-zen's hooks (and only those) through Codex's own app-server, as /hooks in Codex would",
    async trust({ cwd, env, version }) {
      // Loaded here only: it starts Codex's app-server, which nothing else does.
      const { trustOurCodexHooks } = await import('./codex-hook-trust.js');
      const codex = env.AI_ZEN_CODEX_BIN || 'codex';
      const trusted = await trustOurCodexHooks({ codex, cwd, env, version }).catch((error: unknown) => {
        throw new AiZenError('config', `could not trust the hooks in Codex: ${error instanceof Error ? error.message : String(error)}`);
      });
      return trusted.trusted.length > 0
        ? `Codex now trusts ai-zen's ${trusted.trusted.length} hooks (and no other)`
        : "Codex already trusted ai-zen's hooks";
    },
    hint: "Codex runs a hook only once you trust it: open codex, type /hooks and trust ai-zen's three hooks — or run: ai-zen-daemon install-hooks codex --trust",
  },
};
