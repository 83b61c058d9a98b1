// A daemon whose repo was moved or deleted has nothing left to watch: it says so in its log and
// exits, instead of running on for a path that is gone (and making `.ai-zen` there again).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { processAlive } from '../support/process-alive.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

let daemon: DaemonRepo | null = null;
let moved: string | null = null;
afterEach(async () => {
  // Put the repo back where the harness made it, so its cleanup finds it.
  if (daemon && moved) await fs.rename(moved, daemon.root).catch(() => {});
  if (daemon && (await daemon.running())) await daemon.daemon(['stop']);
  await daemon?.cleanup();
  daemon = moved = null;
});

describe('a repo that is gone', () => {
  test('mv of the repo under a running daemon: the daemon logs that its repo is gone and exits, and nothing is made at the old path', async () => {
    daemon = await makeDaemonRepo();
    const pid = await daemon.start();
    moved = `${daemon.root}-moved`;
    await fs.rename(daemon.root, moved);

    await waitFor(() => !processAlive(pid), { timeoutMs: 30_000, message: 'the daemon of the moved repo to exit' });
    const log = await fs.readFile(path.join(moved, '.ai-zen', 'logs', 'daemon.log'), 'utf8');
    expect(log).toContain(`the repo ${daemon.root} is gone (moved or deleted); the daemon exits`);
    expect(await fs.stat(daemon.root).catch(() => null)).toBeNull();
  }, 60_000);
});
