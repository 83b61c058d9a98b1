// A lean entry writes its answer straight to its descriptor: the whole answer arrives, and a
// descriptor nobody can write to never fails the hook or the statusline.
import { closeSync, openSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeOut } from '../../src/cli/shared/write-out.js';

let folder: string;
beforeEach(async () => {
  folder = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-write-out-'));
});
afterEach(async () => {
  await fs.rm(folder, { recursive: true, force: true });
});

describe('writeOut', () => {
  it('writes the whole answer, multi-byte and larger than a pipe buffer, without touching the stream', async () => {
    const file = path.join(folder, 'out');
    const fd = openSync(file, 'w');
    const text = `${JSON.stringify({ additionalContext: 'répertoire 日本語 '.repeat(8000) })}\n`;
    const stream = new PassThrough();
    await writeOut(fd, text, () => stream);
    closeSync(fd);
    expect(await fs.readFile(file, 'utf8')).toBe(text);
    expect(stream.read()).toBeNull();
  });

  it('resolves quietly on a descriptor that is closed', async () => {
    const fd = openSync(path.join(folder, 'gone'), 'w');
    closeSync(fd);
    await expect(writeOut(fd, 'line\n', () => new PassThrough())).resolves.toBeUndefined();
  });
});
