// `ai-zen-daemon start [--foreground]` (D1). Detached by default: a child running the daemon in
// its own session, its stdout/stderr appended to `.ai-zen/logs/daemon.out`; `start` returns once
// the daemon answers a status request, printing pid, socket and log. A second `start` for the
// same repo says it is already running and exits with EXIT_ALREADY_RUNNING, leaving it alone.
import fs from 'node:fs';
import { Option, type Command } from 'commander';
import { allowsProjectChoices, checkTrust, describeTrust } from '../../config/trust.js';
import { daemonLogPath } from '../../daemon/process/daemon-logger.js';
import { EXIT_ALREADY_RUNNING } from '../../exit-codes.js';
import { StatusInfo } from '../../daemon/side-channels/status-schema.js';
import { AiZenError, describeError } from '../../errors.js';
import { mapLimited } from '../../map-limited.js';
import { connectIpc } from '../../ipc/client.js';
import { silentLogger } from '../../log/logger.js';
import { socketPathFor } from '../../ipc/socket-path.js';
import { projectPaths, type Env } from '../../paths.js';
import { daemonRoot, isDaemonRunning } from '../shared/daemon-client.js';
import { isEnabled, readEnabled } from '../shared/enabled-repos.js';
import { ensureGitignore } from '../shared/project-root.js';
import { launchDaemon } from '../shared/launch-daemon.js';
import { writeOut, type CliSetup } from '../shared/run-cli.js';
import { packageVersion } from '../shared/package-version.js';

/** How long `start` waits for the new daemon to answer. */
const START_DEADLINE_MS = 20_000;

export function registerStartCommand(program: Command, setup: CliSetup): void {
  program
    .command('start')
    .description('start the daemon for this repo (detached; returns once it answers)')
    .option('--foreground', 'stay in the foreground with readable logs on stderr (for systemd, launchd)')
    .option(
      '--enabled',
      'start the daemon of every repo you enabled (ai-zen-daemon enable), from any folder: what service install runs at login',
    )
    // The detached child: foreground without the readable copy on stderr (that goes to daemon.out).
    .addOption(new Option('--detached-child').hideHelp())
    .action(async (options: { foreground?: boolean; detachedChild?: boolean; enabled?: boolean }) => {
      const { io } = setup;
      if (options.enabled) {
        if (options.foreground)
          throw new AiZenError('usage', '--enabled starts several daemons, detached; it does not go with --foreground');
        await startEnabled(setup);
        return;
      }
      const root = await daemonRoot(io.cwd, io.env);
      // Sessions and logs stay local (the daemon's own log included); handoffs/ is for committing.
      await ensureGitignore(projectPaths(root), silentLogger());
      if (options.foreground || options.detachedChild) {
        await runInForeground(root, io.env, options.detachedChild !== true);
        return;
      }
      const started = await startDetached(root, io.env);
      const verdict = await checkTrust(root, io.env);
      const trust = allowsProjectChoices(verdict) ? '' : `  trust   ${describeTrust(verdict)}\n`;
      await writeOut(
        io.stdout,
        `ai-zen-daemon: started for ${root}\n  pid     ${started.pid}\n  socket  ${started.socket}\n  log     ${started.log}\n${trust}`,
      );
    });
}

/**
 * `start --enabled`: every enabled repo's daemon that is not running yet, a few at a
 * time. One repo that fails is one line on stderr and exit 1, after the others were started.
 */
async function startEnabled(setup: CliSetup): Promise<void> {
  const { io } = setup;
  const enabled = await readEnabled(io.env);
  const results = await mapLimited(enabled.repos, 4, async (root): Promise<{ line: string; failed: boolean }> => {
    try {
      if (!(await fs.promises.stat(root).catch(() => null))?.isDirectory())
        return { line: `${root}: no such folder any more (moved? run ai-zen-daemon enable in its new place)`, failed: true };
      if (await isDaemonRunning(root, io.env)) return { line: `already running for ${root}`, failed: false };
      await ensureGitignore(projectPaths(root), silentLogger());
      const started = await startDetached(root, io.env);
      return { line: `started for ${root} (pid ${started.pid})`, failed: false };
    } catch (error) {
      if (AiZenError.isInstance(error) && error.exitCode === EXIT_ALREADY_RUNNING)
        return { line: `already running for ${root}`, failed: false };
      return { line: `${root}: ${describeError(error)}`, failed: true };
    }
  });
  const out = results.filter((result) => !result.failed).map((result) => `ai-zen-daemon: ${result.line}\n`);
  if (enabled.repos.length === 0) out.push(`ai-zen-daemon: no repo is enabled (ai-zen-daemon enable in a repo adds it)\n`);
  if (enabled.global)
    out.push("ai-zen-daemon: enable --global is on: every other repo gets its daemon when an agent's session starts there\n");
  await writeOut(io.stdout, out.join(''));
  const failed = results.filter((result) => result.failed);
  for (const result of failed) await writeOut(io.stderr, `ai-zen-daemon: ${result.line}\n`);
  if (failed.length > 0) throw new AiZenError('daemon', `${failed.length} of ${enabled.repos.length} enabled repos did not start (above)`);
}

async function runInForeground(root: string, env: Env, readableStderr: boolean): Promise<never> {
  const { runDaemon } = await import('../../daemon/process/run-daemon.js');
  try {
    // An enabled repo's next session brings its daemon back, so only there may it exit when idle.
    await runDaemon({ root, env, foreground: readableStderr, version: packageVersion(), comesBack: () => isEnabled(root, env) });
  } catch (error) {
    if (AiZenError.isInstance(error) && error.exitCode === EXIT_ALREADY_RUNNING) throw await alreadyRunning(root, env);
    throw error;
  }
  // The daemon's watchers and socket keep the process alive; the shutdown coordinator exits it.
  return new Promise<never>(() => {});
}

async function startDetached(root: string, env: Env): Promise<{ pid: number; socket: string; log: string }> {
  if (await isDaemonRunning(root, env)) throw await alreadyRunning(root, env);
  const { child, outputFile, startedAt } = launchDaemon(root, env);
  let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  let spawnError: string | null = null;
  void child.ended.then((ended) => {
    if (ended.startError !== null) spawnError = ended.startError;
    else exit = { code: ended.exitCode, signal: ended.signal };
  });

  const socketPath = socketPathFor(root, { env });
  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    if (spawnError !== null) throw new AiZenError('daemon', `could not start the daemon: ${spawnError}`);
    const ended = exit as { code: number | null; signal: NodeJS.Signals | null } | null;
    if (ended) {
      if (ended.code === EXIT_ALREADY_RUNNING) throw await alreadyRunning(root, env);
      const why = lastLine(outputFile, startedAt);
      throw new AiZenError(
        'daemon',
        `the daemon exited (${ended.signal ?? `code ${ended.code}`}) before it answered${why ? `: ${why}` : ''} (see ${outputFile})`,
      );
    }
    const status = await askStatus(socketPath, root);
    if (status && status.pid === child.pid) return { pid: status.pid, socket: status.socket, log: status.log };
    if (Date.now() > deadline) {
      throw new AiZenError(
        'daemon',
        `the daemon (pid ${child.pid}) did not answer within ${START_DEADLINE_MS / 1000} s (see ${daemonLogPath(root)})`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function askStatus(socketPath: string, root: string): Promise<StatusInfo | null> {
  try {
    const client = await connectIpc({ socketPath, repoRoot: root, timeoutMs: 1000 });
    try {
      const parsed = StatusInfo.safeParse(await client.request('status', undefined, { timeoutMs: 5000 }));
      return parsed.success ? parsed.data : null;
    } finally {
      await client.close().catch(() => {});
    }
  } catch {
    return null;
  }
}

/** The refusal of a second start, naming the running daemon's pid when it answers. */
async function alreadyRunning(root: string, env: Env): Promise<AiZenError> {
  const status = await askStatus(socketPathFor(root, { env }), root);
  const pid = status ? `pid ${status.pid}` : 'it does not answer yet';
  return new AiZenError('daemon', `already running for ${root} (${pid})`, { exitCode: EXIT_ALREADY_RUNNING });
}

/** The last non-empty line the child wrote to daemon.out in this run (Node's own fatal message). */
function lastLine(file: string, from: number): string | null {
  try {
    const text = fs.readFileSync(file).subarray(from).toString('utf8');
    return (
      text
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line.length > 0)
        .at(-1)
        ?.slice(0, 300) ?? null
    );
  } catch {
    return null;
  }
}
