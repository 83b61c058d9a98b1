// ai-zen-daemon loads only the module of the command it runs (src/cli/daemon/commands.ts). The table that
// says which module that is must name every command the registrars register, and each entry must
// register its command: a command missing from it would still work (all modules load then), but a
// wrong entry would make the command unknown.
import os from 'node:os';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_REGISTRARS, registrarsFor } from '../../src/cli/daemon/commands.js';
import { processIo } from '../../src/cli/shared/run-cli.js';
import { DAEMON_BIN } from '../daemon/daemon-harness.js';
import { runCli } from '../support/run-cli-in-process.js';

const setup = { io: processIo(), extensions: [] };
const commandsOf = (registrars: Awaited<ReturnType<typeof registrarsFor>>) => {
  const program = new Command();
  for (const register of registrars) register(program, setup);
  return program.commands.flatMap((command) => [command.name(), ...command.aliases()]);
};

describe('ai-zen-daemon loads only the command it runs', () => {
  it('D1 every command of ai-zen-daemon is in the table, and each entry registers its own command', async () => {
    const all = commandsOf(await registrarsFor([]));
    expect(all.sort()).toEqual(Object.keys(COMMAND_REGISTRARS).sort());
    for (const name of Object.keys(COMMAND_REGISTRARS)) expect(commandsOf(await registrarsFor([name, '--help']))).toContain(name);
  });

  it('D1 help, --version and a mistyped command still see the whole program', async () => {
    const help = await runCli(['--help'], { bin: DAEMON_BIN, cwd: os.tmpdir() });
    expect(help.code).toBe(0);
    for (const name of ['start', 'status', 'install-hooks', 'doctor', 'statusline'])
      expect(help.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    const typo = await runCli(['stauts'], { bin: DAEMON_BIN, cwd: os.tmpdir() });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("ai-zen-daemon: unknown command 'stauts' (see ai-zen-daemon --help)\n");
  });
});
