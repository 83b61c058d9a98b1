// The commands of `ai-zen-daemon`, and the module that registers each, loaded on demand.
import type { CommandRegistrar } from '../shared/run-cli.js';

/**
 * Which module registers each command. A run loads only the one its command needs: loading all of
 * them cost every `status`, `stop`, `install-hooks` and the daemon process itself ~255 modules and
 * 0.4 s of CPU before doing anything. Help, `--version`, and anything not listed load them all, so
 * commander sees the whole program there (test/cli/daemon-command-table.fast.test.ts keeps this table
 * equal to what the registrars register).
 */
export const COMMAND_REGISTRARS: Readonly<Record<string, () => Promise<CommandRegistrar>>> = {
  start: async () => (await import('./start.js')).registerStartCommand,
  stop: async () => (await import('./stop.js')).registerStopCommand,
  status: async () => (await import('./status.js')).registerStatusCommand,
  sessions: async () => (await import('./sessions.js')).registerSessionsCommand,
  handoffs: async () => (await import('./handoffs.js')).registerHandoffsCommand,
  facts: async () => (await import('./facts.js')).registerFactsCommand,
  transcript: async () => (await import('./transcript.js')).registerTranscriptCommand,
  ls: async () => (await import('./ls.js')).registerListCommand,
  handoff: async () => (await import('./handoff.js')).registerHandoffCommands,
  migrate: async () => (await import('./handoff.js')).registerHandoffCommands,
  'install-hooks': async () => (await import('./agent-hooks.js')).registerAgentHookCommands,
  'uninstall-hooks': async () => (await import('./agent-hooks.js')).registerAgentHookCommands,
  uninstall: async () => (await import('./uninstall.js')).registerUninstallCommand,
  enable: async () => (await import('./enable.js')).registerEnableCommands,
  disable: async () => (await import('./enable.js')).registerEnableCommands,
  hook: async () => (await import('./hook.js')).registerHookCommand,
  trust: async () => (await import('./trust.js')).registerTrustCommands,
  untrust: async () => (await import('./trust.js')).registerTrustCommands,
  service: async () => (await import('./service.js')).registerServiceCommand,
  mcp: async () => (await import('./mcp/mcp-command.js')).registerMcpCommand,
  continue: async () => (await import('./continue.js')).registerContinueCommand,
  top: async () => (await import('./top.js')).registerTopCommand,
  doctor: async () => (await import('./doctor.js')).registerDoctorCommand,
  statusline: async () => (await import('./statusline.js')).registerStatuslineCommand,
  learned: async () => (await import('./learned.js')).registerLearnedCommand,
};

/** The registrars a run needs: its command's, or every one (help, --version, a mistyped command). */
export async function registrarsFor(argv: readonly string[]): Promise<CommandRegistrar[]> {
  const name = argv[0];
  if (name !== undefined && Object.hasOwn(COMMAND_REGISTRARS, name)) return [await COMMAND_REGISTRARS[name]!()];
  const all = await Promise.all(Object.values(COMMAND_REGISTRARS).map((load) => load()));
  return [...new Set(all)];
}
