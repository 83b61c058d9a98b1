#!/usr/bin/env node
// The `ai-zen` command. Each command lives in its own file and registers itself here;
// extensions (auto-migration, session locks) attach to every project a command opens.
import { chatAgentRequestChooser, chatOverflowChooser, runChat } from './ai-zen/chat.js';
import { registerConfigCommand } from './ai-zen/config.js';
import { registerHandoffCommands } from './ai-zen/handoff.js';
import { handoffExtension } from './ai-zen/handoff-extension.js';
import { packageVersion } from './shared/package-version.js';
import { registerPrintCommand } from './ai-zen/print.js';
import { runCli } from './shared/run-cli.js';
import { registerSessionsCommand } from './ai-zen/sessions.js';

const code = await runCli(process.argv.slice(2), {
  registrars: [registerPrintCommand, registerHandoffCommands, registerSessionsCommand, registerConfigCommand],
  extensions: [handoffExtension({ interactiveChooser: chatOverflowChooser, agentRequestChooser: chatAgentRequestChooser })],
  chat: runChat,
  version: packageVersion(),
});
process.exit(code);
