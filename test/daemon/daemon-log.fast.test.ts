// D1: pino logs to `.ai-zen/logs/daemon.log`, rotated by size as logrotate does (daemon.log.1 …).
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDaemonLog, daemonLogPath } from '../../src/daemon/process/daemon-logger.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

describe('D1 the daemon log', () => {
  let repo: TempRepo;
  beforeEach(async () => {
    repo = await makeTempRepo({ git: false });
  });
  afterEach(async () => {
    await repo.cleanup();
  });

  async function writeLines(size: string, keep: number, count: number): Promise<string> {
    const log = await createDaemonLog({ root: repo.root, foreground: false, size, keep });
    expect(log.file).toBe(daemonLogPath(repo.root));
    for (let index = 0; index < count; index += 1) {
      log.logger.info({ index, filler: 'x'.repeat(80) }, 'a line');
      await new Promise((resolve) => setImmediate(resolve));
    }
    log.logger.info({ apiKey: 'sk-secret' }, 'the last line');
    await log.close();
    return log.file;
  }

  it('D1 rotates by size, keeps a bounded number of files, and daemon.log is always the current one', async () => {
    const file = await writeLines('1K', 2, 60);
    const names = (await fs.readdir(path.dirname(file))).filter((name) => name.startsWith('daemon.log')).sort();
    expect(names).toEqual(['daemon.log', 'daemon.log.1', 'daemon.log.2']);
    const current = await fs.readFile(file, 'utf8');
    expect(current).toContain('"msg":"the last line"');
    expect(current).not.toContain('sk-secret');
    // Every file stays near the size limit; the newest rotated one holds the lines just before.
    for (const name of names) expect((await fs.stat(path.join(path.dirname(file), name))).size).toBeLessThan(2048);
    const previous = await fs.readFile(`${file}.1`, 'utf8');
    const lastIndex = (text: string) => Math.max(...[...text.matchAll(/"index":(\d+)/g)].map((match) => Number(match[1])));
    expect(lastIndex(previous)).toBeGreaterThan(lastIndex(await fs.readFile(`${file}.2`, 'utf8')));
  });

  it('D1 a restarted daemon appends to daemon.log, and a symlink left by an earlier layout is replaced by the file', async () => {
    const file = daemonLogPath(repo.root);
    await fs.mkdir(path.join(path.dirname(file), 'daemon'), { recursive: true });
    await fs.writeFile(path.join(path.dirname(file), 'daemon', 'daemon.1.log'), 'old layout\n');
    await fs.symlink(path.join('daemon', 'daemon.1.log'), file);
    await writeLines('10M', 5, 1);
    expect((await fs.lstat(file)).isFile()).toBe(true);
    await writeLines('10M', 5, 1);
    const text = await fs.readFile(file, 'utf8');
    expect(text.match(/"msg":"the last line"/g)).toHaveLength(2);
    expect(await fs.readFile(path.join(path.dirname(file), 'daemon', 'daemon.1.log'), 'utf8')).toBe('old layout\n');
  });
});
