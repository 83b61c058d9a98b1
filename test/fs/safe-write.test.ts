import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AiZenError } from '../../src/errors.js';
import { removeStaleTempFiles, writeFileInside } from '../../src/fs/safe-write.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

async function listDir(dir: string): Promise<string[]> {
  return (await fs.readdir(dir)).sort();
}

/** The pid of a real process that has exited (so nothing owns a temp file named after it). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  const pid = child.pid!;
  await new Promise((resolve) => child.on('exit', resolve));
  return pid;
}

describe('safe atomic writes inside the project (no write follows a symlink out)', () => {
  let repo: TempRepo;
  let outside: string;

  beforeEach(async () => {
    repo = await makeTempRepo({ git: false });
    outside = path.join(path.dirname(repo.root), 'outside');
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'target.md'), 'untouched');
  });
  afterEach(() => repo.cleanup());

  it('writes the file, creates missing folders and leaves no temp file', async () => {
    const absolute = await writeFileInside(repo.root, '.ai-zen/handoffs/doc.md', 'hello');
    expect(absolute).toBe(path.join(repo.root, '.ai-zen', 'handoffs', 'doc.md'));
    expect(await fs.readFile(absolute, 'utf8')).toBe('hello');
    expect(await listDir(path.dirname(absolute))).toEqual(['doc.md']);
  });

  it('replaces an existing file whole', async () => {
    await writeFileInside(repo.root, 'a.txt', 'first version, longer');
    await writeFileInside(repo.root, 'a.txt', 'second');
    expect(await fs.readFile(path.join(repo.root, 'a.txt'), 'utf8')).toBe('second');
  });

  it('exclusive: fails with code EEXIST and keeps the existing file', async () => {
    await writeFileInside(repo.root, 'a.txt', 'original', { exclusive: true });
    const error = await writeFileInside(repo.root, 'a.txt', 'again', { exclusive: true }).catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).toBe('EEXIST');
    expect(await fs.readFile(path.join(repo.root, 'a.txt'), 'utf8')).toBe('original');
    expect(await listDir(repo.root)).toEqual(['a.txt']);
  });

  it('refuses writing over a symlinked file and leaves its target untouched', async () => {
    await fs.mkdir(path.join(repo.root, '.ai-zen', 'handoffs'), { recursive: true });
    const link = path.join(repo.root, '.ai-zen', 'handoffs', 'x.md');
    await fs.symlink(path.join(outside, 'target.md'), link);
    const error = await writeFileInside(repo.root, '.ai-zen/handoffs/x.md', 'overwritten').catch((e: unknown) => e);
    expect(AiZenError.isInstance(error) && error.code).toBe('confinement');
    expect(await fs.readFile(path.join(outside, 'target.md'), 'utf8')).toBe('untouched');
    expect((await fs.lstat(link)).isSymbolicLink()).toBe(true);
  });

  it('refuses writing over a symlink even when it points inside the root', async () => {
    await fs.writeFile(path.join(repo.root, 'real.md'), 'inside');
    await fs.symlink('real.md', path.join(repo.root, 'alias.md'));
    const error = await writeFileInside(repo.root, 'alias.md', 'overwritten').catch((e: unknown) => e);
    expect(AiZenError.isInstance(error) && error.code).toBe('confinement');
    expect(await fs.readFile(path.join(repo.root, 'real.md'), 'utf8')).toBe('inside');
  });

  it('refuses writing through a symlinked .ai-zen/handoffs folder that points out', async () => {
    await fs.mkdir(path.join(repo.root, '.ai-zen'));
    await fs.symlink(outside, path.join(repo.root, '.ai-zen', 'handoffs'));
    const error = await writeFileInside(repo.root, '.ai-zen/handoffs/target.md', 'overwritten').catch((e: unknown) => e);
    expect(AiZenError.isInstance(error) && error.code).toBe('confinement');
    expect(await fs.readFile(path.join(outside, 'target.md'), 'utf8')).toBe('untouched');
    expect(await listDir(outside)).toEqual(['target.md']);
  });

  it('writes through a symlinked folder that stays inside, to the real location', async () => {
    await fs.mkdir(path.join(repo.root, 'real'));
    await fs.symlink('real', path.join(repo.root, 'alias'));
    const absolute = await writeFileInside(repo.root, 'alias/doc.md', 'content');
    expect(absolute).toBe(path.join(repo.root, 'real', 'doc.md'));
    expect(await fs.readFile(absolute, 'utf8')).toBe('content');
  });

  it('refuses ../ and an absolute path outside', async () => {
    for (const target of ['../outside/target.md', path.join(outside, 'target.md')]) {
      const error = await writeFileInside(repo.root, target, 'overwritten').catch((e: unknown) => e);
      expect(AiZenError.isInstance(error) && error.code).toBe('confinement');
    }
    expect(await fs.readFile(path.join(outside, 'target.md'), 'utf8')).toBe('untouched');
  });

  it('removeStaleTempFiles removes temp files of a dead writer and keeps a live one and other files', async () => {
    const dir = path.join(repo.root, 'd');
    await fs.mkdir(dir);
    const stale = `.doc.md.${await deadPid()}-0123456789ab.tmp`;
    const live = `.doc.md.${process.pid}-ba9876543210.tmp`;
    for (const name of [stale, live, 'doc.md', 'notes.tmp']) await fs.writeFile(path.join(dir, name), 'x');
    expect(await removeStaleTempFiles(dir)).toEqual([stale]);
    expect(await listDir(dir)).toEqual([live, 'doc.md', 'notes.tmp'].sort());
  });

  it('removeStaleTempFiles removes a temp file older than an hour whatever its pid', async () => {
    const dir = path.join(repo.root, 'd');
    await fs.mkdir(dir);
    const old = `.doc.md.${process.pid}-0123456789ab.tmp`;
    await fs.writeFile(path.join(dir, old), 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await fs.utimes(path.join(dir, old), twoHoursAgo, twoHoursAgo);
    expect(await removeStaleTempFiles(dir)).toEqual([old]);
  });
});
