import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MAX_SOCKET_PATH_BYTES, socketPathFor } from '../../src/ipc/socket-path.js';

let base: string;
beforeEach(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-sp-'));
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

it('D5 the socket path is a short hash of the repo real path in the per-user run folder', async () => {
  const repo = path.join(base, 'a-repository-with-a-rather-long-name-'.repeat(4));
  await fs.mkdir(repo);
  await fs.symlink(repo, path.join(base, 'link'));
  const options = { env: { AI_ZEN_HOME: path.join(base, 'home'), TMPDIR: '/somewhere/else' } };
  const socketPath = socketPathFor(repo, options);
  expect(path.dirname(socketPath)).toBe(path.join(base, 'home', 'run'));
  expect(path.basename(socketPath)).toMatch(/^d-[0-9a-f]{16}\.sock$/);
  expect(Buffer.byteLength(socketPath)).toBeLessThanOrEqual(MAX_SOCKET_PATH_BYTES);
  expect(socketPathFor(path.join(base, 'link'), options)).toBe(socketPath);
  expect(socketPathFor(base, options)).not.toBe(socketPath);
});

it('D5 a run folder too deep for a socket path is refused with a way out, never cut silently', () => {
  const deep = path.join(base, 'x'.repeat(90));
  expect(() => socketPathFor(base, { env: { AI_ZEN_HOME: deep } })).toThrow(/over the 100 .*set AI_ZEN_HOME to a shorter folder/);
});
