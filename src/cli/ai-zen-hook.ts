#!/usr/bin/env node
// The lean entry of `ai-zen-daemon hook <agent> <event>`: the stable shim runs this file for `hook`,
// so every Stop, PreCompact and SessionStart an agent fires loads only the hook's path (hook-answer.ts:
// the agent's module, the IPC client), not the whole CLI (commander, every command's code, the
// daemon launcher): the agent waits on each hook, and each ran ~0.4 s of CPU before the daemon was
// even asked. Never fails the agent: any error prints nothing and exits 0.
import { EXIT_USAGE } from '../exit-codes.js';
import { answerHookQuietly } from './daemon/hook-answer.js';

const [agent, event, ...rest] = process.argv.slice(2);
if (agent === undefined || event === undefined || rest.length > 0) {
  // A person's mistake (an agent's settings always pass both): one line and the usage exit, as the full CLI.
  process.stderr.write('ai-zen-daemon: hook takes <agent> <event> (it is run by the agent as its hook)\n');
  process.exit(EXIT_USAGE);
}
const output = await answerHookQuietly(agent, event, { cwd: process.cwd(), env: process.env, stdin: process.stdin });
if (output) await new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(output)}\n`, () => resolve()));
process.exit(0);
