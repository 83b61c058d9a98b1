#!/usr/bin/env node
// The `ai-zen` command. Each command lives in its own file and registers itself here;
// extensions (auto-migration, session locks) attach to every project a command opens.
import { chatAgentRequestChooser, chatOverflowChooser, runChat } from './chat-command.js';
import { registerConfigCommand } from './config-command.js';
import { registerHandoffCommands } from './handoff-command.js';
import { handoffExtension } from './handoff-extension.js';
import { packageVersion } from './package-version.js';
import { registerPrintCommand } from './print-command.js';
import { runCli } from './run-cli.js';
import { registerSessionsCommand } from './sessions-command.js';

const code = await runCli(process.argv.slice(2), {
  registrars: [registerPrintCommand, registerHandoffCommands, registerSessionsCommand, registerConfigCommand],
  extensions: [handoffExtension({ interactiveChooser: chatOverflowChooser, agentRequestChooser: chatAgentRequestChooser })],
  chat: runChat,
  version: packageVersion(),
});
process.exit(code);
