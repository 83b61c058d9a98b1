// What `ai-zen-daemon` is: the command table's commands, each loaded only when run (commands.ts says why).
// The entry script (src/cli/ai-zen-daemon.ts) runs it on the process; tests run it in-process with their own I/O.
import { packageVersion } from '../shared/package-version.js';
import { type CliIo, runCli } from '../shared/run-cli.js';
import { registrarsFor } from './commands.js';

/** Runs `ai-zen-daemon argv…` to its end and resolves with the exit code (the process's own I/O unless `io` is given). */
export async function runAiZenDaemon(argv: readonly string[], io?: CliIo): Promise<number> {
  return runCli(argv, { name: 'ai-zen-daemon', version: packageVersion(), registrars: await registrarsFor(argv), ...(io ? { io } : {}) });
}
