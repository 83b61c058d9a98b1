#!/usr/bin/env node
// The `ai-zen-daemon` command (D1–D5): start/stop the per-repo daemon and ask it questions.
// Exit codes: src/exit-codes.ts (all of them, documented in docs/contracts.md).
// No V8 flag is set here: the daemon process gets its own on its command line (daemon-node-options.ts).
import { registerAgentHookCommands } from './daemon-agent-hooks.js';
import { registerContinueCommand } from './daemon-continue.js';
import { registerDoctorCommand } from './daemon-doctor.js';
import { registerHandoffCommands } from './daemon-handoff.js';
import { registerListCommand } from './daemon-list.js';
import { registerMcpCommand } from './mcp/mcp-command.js';
import { registerQueryCommands } from './daemon-queries.js';
import { registerServiceCommand } from './daemon-service.js';
import { packageVersion, registerStartCommand } from './daemon-start.js';
import { registerStopCommand } from './daemon-stop.js';
import { registerTopCommand } from './daemon-top.js';
import { registerStatuslineCommand } from './statusline.js';
import { registerTrustCommands } from './daemon-trust.js';
import { runCli } from './run-cli.js';

// `ai-zen-daemon status | head -1`: a reader that goes away early is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });
}

const code = await runCli(process.argv.slice(2), {
  name: 'ai-zen-daemon',
  version: packageVersion(),
  registrars: [
    registerStartCommand,
    registerStopCommand,
    registerQueryCommands,
    registerListCommand,
    registerHandoffCommands,
    registerAgentHookCommands,
    registerTrustCommands,
    registerServiceCommand,
    registerMcpCommand,
    registerContinueCommand,
    registerTopCommand,
    registerDoctorCommand,
    registerStatuslineCommand,
  ],
});
process.exit(code);
