// Spawning a project's daemon, detached: `ai-zen-daemon start` waits for it to answer; the autostart of
// an enabled repo (an agent's session start, ai-zen's chat or -p turn) does not.
import fs from 'node:fs';
import path from 'node:path';
import { daemonOutputPath } from '../../daemon/process/daemon-logger.js';
import { DAEMON_NODE_OPTIONS } from '../../daemon/process/daemon-node-options.js';
import type { Env } from '../../paths.js';
import { startDetachedProcess } from '../../run-process.js';
import { commandScript } from './command-scripts.js';

/**
 * Spawns the daemon of `root`, detached (its own session, output appended to daemon.out), and
 * returns at once: `start` then waits for its answer; an agent's SessionStart hook in an enabled
 * repo does not. A second one started meanwhile loses the daemon lock and exits.
 */
export function launchDaemon(
  root: string,
  env: Env,
): { child: ReturnType<typeof startDetachedProcess>; outputFile: string; startedAt: number } {
  const outputFile = daemonOutputPath(root);
  fs.mkdirSync(path.dirname(outputFile), { recursive: true });
  const output = fs.openSync(outputFile, 'a');
  const startedAt = fs.fstatSync(output).size;
  try {
    // The V8 memory settings go on the daemon's own command line, never set after start-up.
    const child = startDetachedProcess(
      process.execPath,
      [...DAEMON_NODE_OPTIONS, commandScript('ai-zen-daemon'), 'start', '--detached-child'],
      {
        cwd: root,
        env,
        outputFd: output,
      },
    );
    return { child, outputFile, startedAt };
  } finally {
    fs.closeSync(output);
  }
}
