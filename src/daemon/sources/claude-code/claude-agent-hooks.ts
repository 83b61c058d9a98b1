// Claude Code's hooks as `install-hooks claude` puts them in (agent-hooks.ts): the three hooks and
// the permission rule in the project's `.claude/settings.local.json` (claude-settings.ts), the MCP
// server in `.mcp.json` (claude-mcp.ts) and the statusline (claude-statusline.ts).
import type { AgentHooks } from '../agent-hooks.js';
import { hookInputAsItIs, hookOutputAsItIs } from '../hook-groups.js';
import { claudeMcp } from './claude-mcp.js';
import { claudeSettings } from './claude-settings.js';
import { claudeStatusLine } from './claude-statusline.js';

export const claudeHooks: AgentHooks = {
  ...claudeSettings.hooks,
  readInput: hookInputAsItIs,
  // Claude Code (2.1.332) takes a Stop hook's `additionalContext` as feedback that is not an error:
  // the turn goes on, and the person's screen does not say the hook failed.
  writeOutput: (event, output) =>
    event === 'Stop' && output.decision === 'block' && typeof output.reason === 'string'
      ? { hookSpecificOutput: { hookEventName: 'Stop', additionalContext: output.reason } }
      : hookOutputAsItIs(event, output),
  mcp: claudeMcp,
  statusLine: claudeStatusLine,
  trust: null,
};
