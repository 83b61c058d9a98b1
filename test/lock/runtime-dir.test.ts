import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ensureRuntimeDir, runtimeDirPath } from '../../src/lock/runtime-dir.js';

let base: string;
const uid = process.getuid!();

beforeEach(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-rt-'));
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

it('D5 the runtime folder is $XDG_RUNTIME_DIR/ai-zen when that folder is ours, created 0700', async () => {
  const xdg = path.join(base, 'xdg');
  await fs.mkdir(xdg, { mode: 0o700 });
  const dir = await ensureRuntimeDir({ env: { XDG_RUNTIME_DIR: xdg }, tmpdir: path.join(base, 'tmp') });
  expect(dir).toBe(path.join(xdg, 'ai-zen'));
  expect((await fs.stat(dir)).mode & 0o777).toBe(0o700);
});

it('D5 without a usable XDG_RUNTIME_DIR the runtime folder is <tmpdir>/ai-zen-<uid>', async () => {
  const tmp = path.join(base, 'tmp');
  await fs.mkdir(tmp);
  expect(runtimeDirPath({ env: {}, tmpdir: tmp })).toBe(path.join(tmp, `ai-zen-${uid}`));
  // Not absolute, missing, or someone else's: all fall back.
  expect(runtimeDirPath({ env: { XDG_RUNTIME_DIR: 'relative' }, tmpdir: tmp })).toBe(path.join(tmp, `ai-zen-${uid}`));
  expect(runtimeDirPath({ env: { XDG_RUNTIME_DIR: path.join(base, 'nope') }, tmpdir: tmp })).toBe(path.join(tmp, `ai-zen-${uid}`));
  expect(runtimeDirPath({ env: { XDG_RUNTIME_DIR: base }, tmpdir: tmp, uid: uid + 4242 })).toBe(path.join(tmp, `ai-zen-${uid + 4242}`));
});

it('D5 a runtime folder with loose permissions is tightened to 0700', async () => {
  const tmp = path.join(base, 'tmp');
  const dir = path.join(tmp, `ai-zen-${uid}`);
  await fs.mkdir(dir, { recursive: true });
  await fs.chmod(dir, 0o777);
  await ensureRuntimeDir({ env: {}, tmpdir: tmp });
  expect((await fs.stat(dir)).mode & 0o777).toBe(0o700);
});

it("D5 a runtime folder owned by someone else, or a symlink, is refused", async () => {
  const tmp = path.join(base, 'tmp');
  await fs.mkdir(path.join(tmp, `ai-zen-${uid + 4242}`), { recursive: true });
  // The folder is owned by us, so for a pretended other uid it belongs to "someone else".
  await expect(ensureRuntimeDir({ env: {}, tmpdir: tmp, uid: uid + 4242 })).rejects.toThrow(/belongs to uid/);

  const target = path.join(base, 'elsewhere');
  await fs.mkdir(target);
  await fs.symlink(target, path.join(tmp, `ai-zen-${uid}`));
  await expect(ensureRuntimeDir({ env: {}, tmpdir: tmp })).rejects.toThrow(/not a folder/);
});
