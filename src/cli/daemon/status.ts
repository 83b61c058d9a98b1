// `ai-zen-daemon status [--all] [--json]`: the running daemon's sessions with their context usage, git,
// ports and the latest handoffs (D5); an untrusted repo says so (T4).
import type { Command } from 'commander';
import { allowsProjectChoices, checkTrust, describeTrust } from '../../config/trust.js';
import { StatusInfo } from '../../daemon/side-channels/status-schema.js';
import { socketPathFor } from '../../ipc/socket-path.js';
import type { Env } from '../../paths.js';
import { daemonRoot, isDaemonRunning, requestDaemon } from '../shared/daemon-client.js';
import { type CliSetup, writeOut } from '../shared/run-cli.js';
import { visibleJson as json, visibleText } from '../shared/visible-text.js';
import { renderStatus } from './render.js';

/** T4: an untrusted repo says so, and how to trust it; nothing when all is well. */
export async function trustLine(root: string, env: Env): Promise<string> {
  const verdict = await checkTrust(root, env);
  return allowsProjectChoices(verdict) ? '' : `trust     ${describeTrust(verdict)}\n`;
}

export function registerStatusCommand(program: Command, setup: CliSetup): void {
  const { io } = setup;
  program
    .command('status')
    .description('sessions with their context usage, git, ports and the latest handoffs')
    .option('--all', 'the sessions already handed off too')
    .option('--json', 'one JSON object, for scripts')
    .action(async (options: { json?: boolean; all?: boolean }) => {
      const root = await daemonRoot(io.cwd, io.env);
      let status: StatusInfo;
      try {
        status = await requestDaemon(root, io.env, 'status', options.all ? { all: true } : undefined, StatusInfo);
      } catch (error) {
        // A script asks "is it running?" and reads the answer as JSON either way;
        // the exit code (1) and the line on stderr stay those of any command without a daemon.
        if (options.json && !(await isDaemonRunning(root, io.env)))
          await writeOut(io.stdout, json({ running: false, repo: root, socket: socketPathFor(root, { env: io.env }) }));
        throw error;
      }
      await writeOut(
        io.stdout,
        options.json ? json({ running: true, ...status }) : visibleText(renderStatus(status) + (await trustLine(root, io.env))),
      );
    });
}
