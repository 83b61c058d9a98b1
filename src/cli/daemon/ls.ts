// `ai-zen-daemon ls [--json]`: every daemon of this user that answers, whatever its
// repo — found by the sockets in the private run folder ($AI_ZEN_HOME/run), each asked its status.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { StatusInfo } from '../../daemon/side-channels/status-schema.js';
import { connectIpc } from '../../ipc/client.js';
import { mapLimited } from '../../map-limited.js';
import { runFolder, type Env } from '../../paths.js';
import { writeOut, type CliSetup } from '../shared/run-cli.js';
import { visibleJson, visibleText } from '../shared/visible-text.js';

const SOCKET = /^d-[0-9a-f]{16}\.sock$/;

export interface RunningDaemon {
  readonly repo: string;
  readonly pid: number;
  readonly startedAt: string;
  readonly uptimeSeconds: number;
  readonly sessions: number;
  readonly lastHandoff: { readonly path: string; readonly at: string } | null;
  readonly socket: string;
}

export async function listDaemons(env: Env, now: () => number = Date.now): Promise<RunningDaemon[]> {
  const folder = runFolder(env);
  const names = (await fs.readdir(folder).catch(() => [] as string[])).filter((name) => SOCKET.test(name));
  const found = await mapLimited(names, 4, async (name) => {
    const socketPath = path.join(folder, name);
    try {
      const client = await connectIpc({ socketPath, timeoutMs: 1000 });
      try {
        const parsed = StatusInfo.safeParse(await client.request('status', undefined, { timeoutMs: 5000 }));
        if (!parsed.success) return null;
        const status = parsed.data;
        const last = status.handoffs.at(-1);
        return {
          repo: status.repo,
          pid: status.pid,
          startedAt: status.startedAt,
          uptimeSeconds: Math.max(0, Math.round((now() - Date.parse(status.startedAt)) / 1000)),
          sessions: status.sessions.length,
          lastHandoff: last ? { path: last.path, at: last.at } : null,
          socket: socketPath,
        } satisfies RunningDaemon;
      } finally {
        await client.close().catch(() => {});
      }
    } catch {
      // A socket file left by a daemon that died answers nothing: not running.
      return null;
    }
  });
  return found.filter((entry): entry is RunningDaemon => entry !== null).sort((a, b) => a.repo.localeCompare(b.repo));
}

function uptime(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(seconds / 86_400)}d${Math.floor((seconds % 86_400) / 3600)}h`;
}

export function renderDaemons(daemons: readonly RunningDaemon[]): string {
  if (daemons.length === 0) return 'no ai-zen daemon is running\n';
  const rows = daemons.map((daemon) => [
    daemon.repo,
    String(daemon.pid),
    uptime(daemon.uptimeSeconds),
    String(daemon.sessions),
    daemon.lastHandoff ? `${daemon.lastHandoff.at} ${path.basename(daemon.lastHandoff.path)}` : '-',
  ]);
  const header = ['REPO', 'PID', 'UPTIME', 'SESSIONS', 'LAST HANDOFF'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  return `${[header, ...rows].map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ')).join('\n')}\n`;
}

export function registerListCommand(program: Command, setup: CliSetup): void {
  program
    .command('ls')
    .description('every running daemon of this user: repo, pid, uptime, sessions, last handoff')
    .option('--json', 'one JSON object, for scripts')
    .action(async (options: { json?: boolean }) => {
      const daemons = await listDaemons(setup.io.env);
      await writeOut(setup.io.stdout, options.json ? visibleJson({ daemons }) : visibleText(renderDaemons(daemons)));
    });
}
