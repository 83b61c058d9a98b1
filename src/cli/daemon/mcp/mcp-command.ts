// `ai-zen-daemon mcp`, registered without loading the server: the MCP SDK (and the
// JSON-schema validator under it) took about half of every other command's start — each hook
// Claude Code or Codex runs, each `status` — so mcp-server.ts is loaded only when `mcp` runs.
import type { Command } from 'commander';
import type { CliSetup } from '../../shared/run-cli.js';

export function registerMcpCommand(program: Command, setup: CliSetup): void {
  program
    .command('mcp')
    .description(
      "a stdio MCP server for Claude Code and Codex: this repo's handoff documents, and a read-only search of the sessions a successor continues from",
    )
    .action(async () => {
      const { serveMcp } = await import('./mcp-server.js');
      await serveMcp(setup);
    });
}
