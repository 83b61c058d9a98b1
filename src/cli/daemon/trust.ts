// `ai-zen-daemon trust | untrust` (T4): the user's decision about the repo's own hooks and
// config, recorded in $AI_ZEN_HOME (see config/trust.ts). Like `direnv allow`: it trusts the
// files as they are now; any change to them needs a new `trust`.
import type { Command } from 'commander';
import { checkTrust, describeTrust, trustProject, untrustProject } from '../../config/trust.js';
import { projectPaths } from '../../paths.js';
import { daemonRoot, isDaemonRunning } from '../shared/daemon-client.js';
import { writeOut, type CliSetup } from '../shared/run-cli.js';

export function registerTrustCommands(program: Command, setup: CliSetup): void {
  const { io } = setup;
  program
    .command('trust')
    .description("trust this repo's .ai-zen/hooks/, .ai-zen/skills/ and .ai-zen/config.json as they are now")
    .action(async () => {
      const root = await daemonRoot(io.cwd, io.env);
      const verdict = await trustProject(root, io.env);
      const what =
        verdict.fingerprint === null
          ? 'it has no hooks, no skills and no project config yet; its git-tracked sessions may now go to a model'
          : `its hooks (${projectPaths(root).hooks}), skills and config as they are now`;
      let text = `ai-zen-daemon: trusted ${root}: ${what}\n  record  ${verdict.recordFile}\n`;
      if (await isDaemonRunning(root, io.env))
        text +=
          '  the running daemon runs the hooks and reads the project config again from now on; ai-zen-daemon status says what waits for a restart\n';
      await writeOut(io.stdout, text);
    });
  program
    .command('untrust')
    .description(
      'forget the trust of this repo: its hooks stop running, its skill is not used, its config may not choose endpoint, model, executor or agentMayMigrate',
    )
    .action(async () => {
      const root = await daemonRoot(io.cwd, io.env);
      const removed = await untrustProject(root, io.env);
      const verdict = await checkTrust(root, io.env);
      await writeOut(
        io.stdout,
        `ai-zen-daemon: ${removed ? 'no longer trusted' : 'was not trusted'}: ${root} (${describeTrust(verdict)})\n`,
      );
    });
}
