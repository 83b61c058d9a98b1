// What `ai-zen` is: its commands, the handoff extension every project it opens gets, and the chat.
// The entry script (src/cli/ai-zen.ts) runs it on the process; tests run it in-process with their own I/O.
import { packageVersion } from '../shared/package-version.js';
import { type CliIo, runCli } from '../shared/run-cli.js';
import { chatAgentRequestChooser, chatOverflowChooser, runChat } from './chat.js';
import { registerConfigCommand } from './config.js';
import { registerHandoffCommands } from './handoff.js';
import { handoffExtension } from './handoff-extension.js';
import { registerPrintCommand } from './print.js';
import { registerSessionsCommand } from './sessions.js';

/** Runs `ai-zen argv…` to its end and resolves with the exit code (the process's own I/O unless `io` is given). */
export function runAiZen(argv: readonly string[], io?: CliIo): Promise<number> {
  return runCli(argv, {
    registrars: [registerPrintCommand, registerHandoffCommands, registerSessionsCommand, registerConfigCommand],
    extensions: [handoffExtension({ interactiveChooser: chatOverflowChooser, agentRequestChooser: chatAgentRequestChooser })],
    chat: runChat,
    version: packageVersion(),
    ...(io ? { io } : {}),
  });
}
