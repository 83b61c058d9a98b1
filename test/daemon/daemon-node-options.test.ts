// No V8 flag is set after start-up. `start` gives the daemon process its memory
// options on its own command line; nothing in src/ calls v8.setFlagsFromString.
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAEMON_NODE_OPTIONS } from '../../src/daemon/process/daemon-node-options.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

describe('the daemon gets its memory options on its command line', { timeout: 60_000 }, () => {
  let daemon: DaemonRepo;
  beforeEach(async () => {
    daemon = await makeDaemonRepo();
  });
  afterEach(async () => {
    await daemon.cleanup();
  });

  it.runIf(process.platform === 'linux')(
    'the daemon process that start spawns runs with --max-semi-space-size=1 before its script',
    async () => {
      const pid = await daemon.start();
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      const script = argv.findIndex((argument) => argument.endsWith('ai-zen-daemon.js'));
      expect(DAEMON_NODE_OPTIONS).toContain('--max-semi-space-size=1');
      expect(argv.slice(1, script)).toEqual([...DAEMON_NODE_OPTIONS]);
      expect(argv.slice(script + 1)).toEqual(['start', '--detached-child']);
    },
  );

  it('nothing in src/ sets a V8 flag at run time', async () => {
    const files = (await fs.readdir(src, { recursive: true })).filter((file) => file.endsWith('.ts'));
    const setters: string[] = [];
    for (const file of files) if ((await fs.readFile(path.join(src, file), 'utf8')).includes('setFlagsFromString')) setters.push(file);
    expect(setters).toEqual([]);
  });
});
