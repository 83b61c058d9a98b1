// `ai-zen-daemon stop`: asks the daemon to stop, then returns once it has exited — when its lock,
// which the kernel frees with the process, is free — or says it did not within the deadline.
import type { Command } from 'commander';
import { StopReply } from '../../daemon/side-channels/status-schema.js';
import { AiZenError } from '../../errors.js';
import { daemonRoot, isDaemonRunning, requestDaemon } from '../shared/daemon-client.js';
import { listDaemons } from './ls.js';
import { readEnabled } from '../shared/enabled-repos.js';
import { writeOut, type CliSetup } from '../shared/run-cli.js';

/** Longer than the daemon's own shutdown deadline (30 s), which lets a running migration finish. */
const STOP_DEADLINE_MS = 40_000;

export function registerStopCommand(program: Command, setup: CliSetup): void {
  program
    .command('stop')
    .description("stop this repo's daemon; returns once it has exited")
    .option('--all', 'stop every running daemon of this user (those ai-zen-daemon ls lists)')
    .option('--enabled', 'stop the running daemons of the repos you enabled (what the login service does at logout)')
    .action(async (options: { all?: boolean; enabled?: boolean }) => {
      const { io } = setup;
      if (options.all || options.enabled) {
        const enabled = options.all ? null : await readEnabled(io.env);
        // With enable --global every repo is enabled: its daemons are all the service's to stop.
        const daemons = (await listDaemons(io.env)).filter((daemon) => !enabled || enabled.global || enabled.repos.includes(daemon.repo));
        for (const daemon of daemons) await stopOne(daemon.repo, io, true);
        if (daemons.length === 0) await writeOut(io.stdout, 'ai-zen-daemon: no daemon is running\n');
        return;
      }
      await stopOne(await daemonRoot(io.cwd, io.env), io, false);
    });
}

export async function stopOne(root: string, io: CliSetup['io'], named: boolean): Promise<void> {
  const reply = await requestDaemon(root, io.env, 'stop', undefined, StopReply);
  const deadline = Date.now() + STOP_DEADLINE_MS;
  while (await isDaemonRunning(root, io.env)) {
    if (Date.now() > deadline)
      throw new AiZenError('daemon', `the daemon (pid ${reply.pid}) did not exit within ${STOP_DEADLINE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await writeOut(io.stdout, `ai-zen-daemon: stopped${named ? ` ${root}` : ''} (pid ${reply.pid})\n`);
}
