// Claude Code does not coalesce statusline runs: the lean entry is single-flight per session. Twenty
// spawned at once all print a line and leave the daemon answering; a run while another of the same
// session is alive prints that one's last line at once; a lock left by a killed run is taken over.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { StatusInfo } from '../../src/daemon/side-channels/status-schema.js';
import { requestDaemon } from '../../src/cli/shared/daemon-client.js';
import { makeDaemonRepo, type DaemonRepo } from '../daemon/daemon-harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const LEAN = path.resolve(here, '..', '..', 'dist', 'cli', 'ai-zen-statusline.cjs');
const SESSION = 'b1b8a42a-0c27-414e-82ce-bf569a0fdf24';

let daemon: DaemonRepo | null = null;
afterEach(async () => {
  await daemon?.cleanup();
  daemon = null;
});

function input(folder: string): string {
  return JSON.stringify({
    session_id: SESSION,
    transcript_path: path.join(folder, 'nowhere', `${SESSION}.jsonl`),
    cwd: folder,
    model: { id: 'claude-sonnet-4-6', display_name: 'Sonnet 4.6' },
    workspace: { current_dir: folder, project_dir: folder },
    context_window: { context_window_size: 200000, used_percentage: 60, current_usage: { input_tokens: 120000 } },
  });
}

function statusline(repo: DaemonRepo): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LEAN], { cwd: repo.root, env: repo.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input(repo.root));
  });
}

const runFiles = async (repo: DaemonRepo) =>
  (await fs.readdir(path.join(repo.repo.home, 'run'))).filter((name) => name.startsWith('statusline-'));

describe('the statusline is single-flight', { timeout: 120_000 }, () => {
  it('20 concurrent runs of one session each print a line and exit 0; the daemon still answers at once, and the next run prints its answer', async () => {
    daemon = await makeDaemonRepo();
    await daemon.start();
    const runs = await Promise.all(Array.from({ length: 20 }, () => statusline(daemon!)));
    for (const run of runs) {
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout).toMatch(/^ctx 60% · .+\n$/);
    }
    const started = performance.now();
    const status = await requestDaemon(daemon.root, daemon.env, 'status', undefined, StatusInfo);
    expect(status.ready).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
    const next = await statusline(daemon);
    expect(next.stdout).toBe('ctx 60% · hands off 70% · compacts ~73%\n');
    // No lock left behind; the session's last line kept for the next run that finds one alive.
    expect(await runFiles(daemon)).toEqual([`statusline-${SESSION}.line`]);
  });

  it('a run while another of the same session is alive prints the last line at once, without asking the daemon', async () => {
    daemon = await makeDaemonRepo();
    const run = path.join(daemon.repo.home, 'run');
    await fs.mkdir(run, { recursive: true, mode: 0o700 });
    // A run in flight (this test process stands for it) and the line the last run printed.
    await fs.writeFile(path.join(run, `statusline-${SESSION}.lock`), String(process.pid));
    await fs.writeFile(path.join(run, `statusline-${SESSION}.line`), 'ctx 59% · hands off 70% · compacts ~73%\n');
    const busy = await statusline(daemon);
    expect(busy).toMatchObject({ code: 0, stdout: 'ctx 59% · hands off 70% · compacts ~73%\n' });
    // The lock of a run that was killed (its pid gone) is taken over: this run asks (no daemon here) and prints its own line.
    await fs.writeFile(path.join(run, `statusline-${SESSION}.lock`), '2147483646');
    const after = await statusline(daemon);
    expect(after).toMatchObject({ code: 0, stdout: 'ctx 60% · ai-zen off\n' });
    expect(await runFiles(daemon)).toEqual([`statusline-${SESSION}.line`]);
  });
});
