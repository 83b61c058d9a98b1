// `ai-zen-daemon hook <agent> <event>`: the command ai-zen's hooks run (the shim runs the lean entry,
// ai-zen-hook.ts, for it). A hook never breaks the agent: without a daemon, or on any error at all,
// it prints nothing and exits 0.
import type { Command } from 'commander';
import { type CliSetup, writeOut } from '../shared/run-cli.js';
import { HOOK_EVENTS } from '../../daemon/sources/agent-hooks.js';
import { answerHookQuietly, HOOK_AGENTS } from './hook-answer.js';

export function registerHookCommand(program: Command, setup: CliSetup): void {
  program
    .command('hook')
    .argument('<agent>', HOOK_AGENTS.join(' | '))
    .argument('<event>', HOOK_EVENTS.join(' | '))
    .description('run by the agent as its hook (reads the hook JSON on stdin); never fails the agent')
    .action(async (agent: string, event: string) => {
      // The shim runs the lean entry (ai-zen-hook.ts) for this; here for `ai-zen-daemon hook` typed or run directly.
      const output = await answerHookQuietly(agent, event, setup.io);
      if (output) await writeOut(setup.io.stdout, `${JSON.stringify(output)}\n`).catch(() => {});
    });
}
