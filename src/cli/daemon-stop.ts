// `ai-zen-daemon stop`: asks the daemon to stop, then returns once it has exited — when its lock,
// which the kernel frees with the process, is free — or says it did not within the deadline.
import type { Command } from 'commander';
import { StopReply } from '../daemon/side-channels/status-schema.js';
import { AiZenError } from '../errors.js';
import { daemonRoot, isDaemonRunning, requestDaemon } from './daemon-client.js';
import { writeOut, type CliSetup } from './run-cli.js';

/** Longer than the daemon's own shutdown deadline (30 s), which lets a running migration finish. */
const STOP_DEADLINE_MS = 40_000;

export function registerStopCommand(program: Command, setup: CliSetup): void {
  program
    .command('stop')
    .description("stop this repo's daemon; returns once it has exited")
    .action(async () => {
      const { io } = setup;
      const root = await daemonRoot(io.cwd, io.env);
      const reply = await requestDaemon(root, io.env, 'stop', undefined, StopReply);
      const deadline = Date.now() + STOP_DEADLINE_MS;
      while (await isDaemonRunning(root, io.env)) {
        if (Date.now() > deadline)
          throw new AiZenError('daemon', `the daemon (pid ${reply.pid}) did not exit within ${STOP_DEADLINE_MS / 1000} s`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await writeOut(io.stdout, `ai-zen-daemon: stopped (pid ${reply.pid})\n`);
    });
}
