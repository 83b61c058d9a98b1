// The OS lock against other processes: holders spawned, killed with -9, racing (the rest is in os-lock.fast.test.ts).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, isLockHeld, type HeldLock } from '../../src/lock/os-lock.js';
import { spawnLockHolder, type LockChild } from './lock-child.js';

let directory: string;
const held: HeldLock[] = [];
const children: LockChild[] = [];

beforeEach(async () => {
  directory = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-lock-'));
});

afterEach(async () => {
  for (const lock of held.splice(0)) await lock.release();
  for (const { child } of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await fs.rm(directory, { recursive: true, force: true });
});

function uniqueName(): string {
  return `test-${randomUUID().slice(0, 12)}`;
}

describe('os lock', () => {
  const options = () => ({ directory });

  it('D1 a holder killed with kill -9 leaves nothing that blocks the next acquire', async () => {
    const name = uniqueName();
    const holder = await spawnLockHolder(name, directory, 'hold');
    children.push(holder);
    expect(holder.acquired).toBe(true);
    expect(await isLockHeld(name, options())).toBe(true);
    expect(await acquireLock(name, options())).toBeNull();

    holder.child.kill('SIGKILL');
    expect((await holder.exited).signal).toBe('SIGKILL');
    // The dead holder's socket file is still there; it must be recognised as stale.
    await expect(fs.stat(path.join(directory, `${name}.lock`))).resolves.toBeTruthy();
    expect(await isLockHeld(name, options())).toBe(false);
    const next = await acquireLock(name, options());
    expect(next).not.toBeNull();
    held.push(next!);
  });

  it('D1 another process cannot take a lock this process holds', async () => {
    const name = uniqueName();
    const mine = await acquireLock(name, options());
    held.push(mine!);
    const other = await spawnLockHolder(name, directory, 'exit-naturally');
    children.push(other);
    expect(other.acquired).toBe(false);
  });

  it('D1 a held lock does not keep the process alive, and stays held until the process exits', async () => {
    const name = uniqueName();
    const holder = await spawnLockHolder(name, directory, 'hold');
    children.push(holder);
    expect(await isLockHeld(name, options())).toBe(true);
    holder.child.stdin!.end(); // nothing but the lock is left to keep it alive
    expect(await holder.exited).toEqual({ code: 0, signal: null });
    expect(await isLockHeld(name, options())).toBe(false);
  });
});

describe('os lock details', () => {
  it("D1 of many processes racing for a dead holder's lock, exactly one gets it", async () => {
    const name = uniqueName();
    const dead = await spawnLockHolder(name, directory, 'hold');
    children.push(dead);
    dead.child.kill('SIGKILL');
    await dead.exited;
    const racers = await Promise.all(Array.from({ length: 6 }, () => spawnLockHolder(name, directory, 'hold')));
    children.push(...racers);
    expect(racers.filter((racer) => racer.acquired)).toHaveLength(1);
    expect(await isLockHeld(name, { directory })).toBe(true);
    // Nothing but the lock itself is left in the folder (no temporary names).
    expect(await fs.readdir(directory)).toEqual([`${name}.lock`]);
  });
});
