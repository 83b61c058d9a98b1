import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ensurePrivateDir } from '../../src/lock/runtime-dir.js';
import { runFolder } from '../../src/paths.js';

let base: string;
const uid = process.getuid!();

beforeEach(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-rt-'));
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

it('the run folder is $AI_ZEN_HOME/run, whatever TMPDIR and XDG_RUNTIME_DIR say', async () => {
  const home = path.join(base, 'home');
  expect(runFolder({ AI_ZEN_HOME: home })).toBe(path.join(home, 'run'));
  expect(runFolder({ AI_ZEN_HOME: home, TMPDIR: '/elsewhere', XDG_RUNTIME_DIR: '/run/user/1' })).toBe(path.join(home, 'run'));
  await ensurePrivateDir(runFolder({ AI_ZEN_HOME: home }));
  expect((await fs.stat(path.join(home, 'run'))).mode & 0o777).toBe(0o700);
});

it('D5 a private folder with loose permissions is tightened to 0700', async () => {
  const dir = path.join(base, 'run');
  await fs.mkdir(dir, { recursive: true });
  await fs.chmod(dir, 0o777);
  await ensurePrivateDir(dir);
  expect((await fs.stat(dir)).mode & 0o777).toBe(0o700);
});

it('T6 a private folder owned by someone else, or a symlink, is refused', async () => {
  const dir = path.join(base, 'run');
  await fs.mkdir(dir, { recursive: true });
  // The folder is owned by us, so for a pretended other uid it belongs to "someone else".
  await expect(ensurePrivateDir(dir, uid + 4242)).rejects.toThrow(/belongs to uid/);

  const target = path.join(base, 'elsewhere');
  await fs.mkdir(target);
  await fs.symlink(target, path.join(base, 'link'));
  await expect(ensurePrivateDir(path.join(base, 'link'))).rejects.toThrow(/not a folder/);
});
