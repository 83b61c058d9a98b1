// D1: pino logs to `.ai-zen/logs/daemon.log`, rotated by pino-roll (used as a stream).
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDaemonLog, daemonLogPath } from '../../src/daemon/daemon-logger.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';
import { waitFor } from '../support/wait-for.js';

describe('D1 the daemon log', () => {
  let repo: TempRepo;
  beforeEach(async () => {
    repo = await makeTempRepo({ git: false });
  });
  afterEach(async () => {
    await repo.cleanup();
  });

  it('D1 rotates by size, keeps a bounded number of files, and daemon.log always names the current one', async () => {
    const log = await createDaemonLog({ root: repo.root, foreground: false, size: '1k', keep: 2 });
    const link = daemonLogPath(repo.root);
    expect(log.file).toBe(link);
    for (let index = 0; index < 60; index += 1) {
      log.logger.info({ index, filler: 'x'.repeat(80) }, 'a line');
      await new Promise((resolve) => setImmediate(resolve));
    }
    log.logger.info({ apiKey: 'sk-secret' }, 'the last line');
    await log.close();
    const folder = path.join(path.dirname(link), 'daemon');
    const files = await waitFor(async () => {
      const names = (await fs.readdir(folder)).filter((name) => /^daemon\.\d+\.log$/.test(name));
      return names.length <= 3 ? names : null;
    }, { message: 'old files to be removed' });
    expect(files.length).toBeGreaterThan(1);
    const newest = files.map((name) => Number(/\d+/.exec(name)![0])).sort((a, b) => b - a)[0];
    expect(await fs.readlink(link)).toBe(path.join('daemon', `daemon.${newest}.log`));
    const current = await fs.readFile(link, 'utf8');
    expect(current).toContain('"msg":"the last line"');
    expect(current).not.toContain('sk-secret');
  });
});
