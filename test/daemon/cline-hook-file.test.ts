// What a cloned repo may have put where ai-zen's Cline hook goes (.clinerules/hooks/PostToolUse):
// a link to a file of the person's, or a FIFO. install-hooks cline refuses both in one line and
// leaves them, and what a link leads to, as they were; uninstall-hooks cline takes neither out.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { clineHooks } from '../../src/daemon/sources/cline/cline-hooks.js';
import { makeFifo } from './daemon-harness.js';

describe('a planted file where the Cline hook goes', () => {
  let root = '';
  let hook = '';
  const command = () => '/home/someone/.ai-zen/bin/ai-zen-daemon hook cline Stop';
  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-cline-file-')));
    hook = path.join(root, '.clinerules', 'hooks', 'PostToolUse');
    await fs.mkdir(path.dirname(hook), { recursive: true });
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  test('a link to a script that reads as ours is refused and kept, and so is its target', async () => {
    const target = path.join(root, 'profile');
    const text = "#!/bin/sh\n# ai-zen's Cline hook, planted\nexec true\n";
    await fs.writeFile(target, text);
    await fs.symlink(target, hook);
    await expect(clineHooks.install({ root, env: {}, command })).rejects.toThrow(/is a hook of yours/);
    expect((await clineHooks.uninstall({ root, env: {} })).changed).toBe(false);
    expect((await fs.lstat(hook)).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(target, 'utf8')).toBe(text);
  });

  test('a FIFO is refused without waiting for a writer', async () => {
    await makeFifo(hook);
    await expect(clineHooks.install({ root, env: {}, command })).rejects.toThrow(/is a hook of yours/);
    expect((await clineHooks.uninstall({ root, env: {} })).changed).toBe(false);
    expect((await fs.lstat(hook)).isFIFO()).toBe(true);
  });
});
