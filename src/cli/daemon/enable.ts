// `ai-zen-daemon enable|disable [--global]`: an agent's session start in this repo (or any) brings
// its daemon up when none runs (the hooks' SessionStart, through the shim).
import type { Command } from 'commander';
import { daemonRoot } from '../shared/daemon-client.js';
import { setEnabled } from '../shared/enabled-repos.js';
import { type CliSetup, writeOut } from '../shared/run-cli.js';
import { HOOK_AGENTS } from './hook-answer.js';
import { ensureHookShim } from './hook-shim.js';
import { markUninstalled } from './uninstalled-repos.js';

export function registerEnableCommands(program: Command, setup: CliSetup): void {
  for (const on of [true, false])
    program
      .command(on ? 'enable' : 'disable')
      .option('--global', 'every repo, not just this one')
      .description(
        on
          ? "an agent's session start in this repo (--global: any repo) brings its daemon up when none runs"
          : 'undo enable (this repo, or with --global the every-repo setting)',
      )
      .action(async (flags: { global?: boolean }) => {
        const root = flags.global ? null : await daemonRoot(setup.io.cwd, setup.io.env);
        if (on) await ensureHookShim(setup.io.env);
        if (on && root !== null) await markUninstalled(setup.io.env, root, false);
        const changed = await setEnabled(root, on, setup.io.env);
        const what = root ?? 'every repo';
        await writeOut(
          setup.io.stdout,
          `ai-zen-daemon: ${changed ? '' : 'already '}${on ? 'enabled' : 'disabled'} for ${what}${on ? ` — an agent's session start brings the daemon up (with ai-zen's hooks installed: install-hooks ${HOOK_AGENTS.join('|')})` : ''}\n`,
        );
      });
}
