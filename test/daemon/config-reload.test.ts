// A running daemon follows its config files: the user's `$AI_ZEN_HOME/config.json` and the trusted
// repo's `.ai-zen/config.json`, written while it runs, apply without a restart where they can; what
// cannot makes `status` say "config changed: restart to apply"; a file that does not parse keeps the
// config it had. A real daemon process, real file writes, waiting on its own status.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { type DaemonRepo, makeDaemonRepo } from './daemon-harness.js';

let repo: DaemonRepo | null = null;
afterEach(async () => {
  await repo?.cleanup();
  repo = null;
});

describe('config changes apply without a restart', { timeout: 90_000 }, () => {
  it('a model added to the user config applies to the running daemon; a setting taken at start says "restart to apply" in status; a broken file keeps the old config and the daemon runs on', async () => {
    repo = await makeDaemonRepo({ config: {}, trusted: true });
    await repo.start();
    const before = await repo.status();
    expect(before.model).toBeNull();
    expect(before.config ?? null).toBeNull();
    const pid = before.pid;
    const userConfig = path.join(repo.env.AI_ZEN_HOME!, 'config.json');

    // A model and its endpoint: the summary executor's, read at the time of use.
    await fs.writeFile(userConfig, JSON.stringify({ model: 'gpt-live-1', baseURL: 'http://127.0.0.1:9/v1' }));
    const applied = await waitFor(async () => ((await repo!.status()).model === 'gpt-live-1' ? repo!.status() : null), {
      timeoutMs: 20_000,
      message: 'the new model in status',
    });
    expect(applied.pid).toBe(pid);
    expect(applied.config ?? null).toBeNull();

    // The repo's trusted config turns notifications off: taken at start, so status says to restart.
    const projectConfig = path.join(repo.root, '.ai-zen', 'config.json');
    await fs.writeFile(projectConfig, JSON.stringify({ daemon: { notifications: false } }));
    // The edit changes the repo's config, which trust judges: the user trusts it again, as they would.
    expect((await repo.daemon(['trust'])).code).toBe(0);
    const waiting = await waitFor(
      async () => {
        const status = await repo!.status();
        return status.config?.includes('daemon.notifications') ? status : null;
      },
      { timeoutMs: 20_000, message: 'restart to apply in status' },
    );
    expect(waiting.config).toBe('config changed: restart to apply (daemon.notifications)');
    expect(waiting.notifications).toBe(before.notifications);
    const shown = await repo.daemon(['status']);
    expect(shown.stdout.split('\n').filter((line) => line.includes('restart to apply'))).toHaveLength(1);

    // A user config that does not parse: the old one stays, status and the log say so in one line.
    await fs.writeFile(userConfig, '{ "model": ');
    const broken = await waitFor(
      async () => {
        const status = await repo!.status();
        return status.config?.startsWith('config not applied') ? status : null;
      },
      { timeoutMs: 20_000, message: 'the broken file in status' },
    );
    expect(broken.pid).toBe(pid);
    expect(broken.model).toBe('gpt-live-1');
    expect(broken.config!.split('\n')).toHaveLength(1);
    expect(broken.config).toContain('keeps the config it had');
    const log = await fs.readFile(broken.log, 'utf8');
    expect(log).toContain('config not applied');

    // Fixed again: applies, and the note is back to the restart one.
    await fs.writeFile(userConfig, JSON.stringify({ model: 'gpt-live-2', baseURL: 'http://127.0.0.1:9/v1' }));
    const fixed = await waitFor(async () => ((await repo!.status()).model === 'gpt-live-2' ? repo!.status() : null), {
      timeoutMs: 20_000,
      message: 'the fixed file applied',
    });
    expect(fixed.config).toBe('config changed: restart to apply (daemon.notifications)');
    expect(fixed.pid).toBe(pid);
  });
});
