// The OS lock within this process (no other process takes part: os-lock.test.ts holds those).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, daemonLockName, isLockHeld, lockHolder, sessionLockName, type HeldLock } from '../../src/lock/os-lock.js';

let directory: string;
const held: HeldLock[] = [];

beforeEach(async () => {
  directory = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-lock-'));
});

afterEach(async () => {
  for (const lock of held.splice(0)) await lock.release();
  await fs.rm(directory, { recursive: true, force: true });
});

function uniqueName(): string {
  return `test-${randomUUID().slice(0, 12)}`;
}

describe('os lock', () => {
  const options = () => ({ directory });

  it('D1 one holder at a time: a second acquire gets null until the first releases', async () => {
    const name = uniqueName();
    const first = await acquireLock(name, options());
    expect(first).not.toBeNull();
    held.push(first!);
    expect(first!.held).toBe(true);
    expect(await acquireLock(name, options())).toBeNull();
    expect(await isLockHeld(name, options())).toBe(true);

    await first!.release();
    expect(first!.held).toBe(false);
    expect(await isLockHeld(name, options())).toBe(false);
    const second = await acquireLock(name, options());
    expect(second).not.toBeNull();
    held.push(second!);
  });

  it('the lock tells whoever asks the holder line it was taken with; none when unheld or unnamed', async () => {
    const named = uniqueName();
    expect(await lockHolder(named, options())).toBeNull();
    const lock = await acquireLock(named, { ...options(), holder: '{"kind":"daemon","pid":42}' });
    held.push(lock!);
    expect(await lockHolder(named, options())).toBe('{"kind":"daemon","pid":42}');
    expect(await isLockHeld(named, options())).toBe(true);
    const unnamed = uniqueName();
    held.push((await acquireLock(unnamed, options()))!);
    expect(await lockHolder(unnamed, options())).toBeNull();
    expect(await isLockHeld(unnamed, options())).toBe(true);
  });

  it('D1 isLockHeld only looks: it never takes a free lock', async () => {
    const name = uniqueName();
    expect(await isLockHeld(name, options())).toBe(false);
    const lock = await acquireLock(name, options());
    expect(lock).not.toBeNull();
    held.push(lock!);
  });
});

describe('os lock details', () => {
  it('D1 a file lock is a 0600 socket that release removes', async () => {
    const name = uniqueName();
    const lock = await acquireLock(name, { directory });
    held.push(lock!);
    const stat = await fs.stat(lock!.address);
    expect(stat.isSocket()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);
    await lock!.release();
    await expect(fs.stat(lock!.address)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('D1 a file lock path held by a regular file is not deleted', async () => {
    const name = uniqueName();
    const file = path.join(directory, `${name}.lock`);
    await fs.writeFile(file, 'not a socket');
    // listen() fails with EADDRINUSE on an existing path; connect is refused; the file is removed
    // only because it sits in our private folder under our lock name.
    const lock = await acquireLock(name, { directory });
    expect(lock).not.toBeNull();
    held.push(lock!);
  });

  it('D1 lock names are hashes of real paths: a symlink and the path itself share one lock', async () => {
    const real = path.join(directory, 'repo');
    await fs.mkdir(real);
    const link = path.join(directory, 'link');
    await fs.symlink(real, link);
    expect(daemonLockName(link)).toBe(daemonLockName(real));
    expect(daemonLockName(real)).toMatch(/^daemon-[0-9a-f]{24}$/);
    expect(daemonLockName(path.join(directory, 'other'))).not.toBe(daemonLockName(real));

    // A session file that does not exist yet gets the same name once it exists.
    const sessionFile = path.join(link, 'abc.jsonl');
    const before = sessionLockName(sessionFile);
    await fs.writeFile(path.join(real, 'abc.jsonl'), '');
    expect(sessionLockName(sessionFile)).toBe(before);
    expect(before).toMatch(/^session-[0-9a-f]{24}$/);
  });

  it('D1 invalid lock names are refused', async () => {
    await expect(acquireLock('../escape')).rejects.toMatchObject({ code: 'daemon' });
    await expect(isLockHeld('')).rejects.toMatchObject({ code: 'daemon' });
  });
});
