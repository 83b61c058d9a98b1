// The agent clients the tests run are installed on demand into a cache, once, however
// many workers ask at the same time, and a failed install fails loudly. Proved with a small local
// package in place of the ~400 MB clients: the same installer, the same npm ci, the same lock.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { clientFolder, ensureAgentClient, readPin } from '../support/agent-clients.js';
import { makeTempRepo } from '../support/temp-repo.js';

const run = promisify(execFile);

/** A one-file client whose install script counts its installs (one line each) in `counter`. */
async function makeLocalClient(base: string, counter: string): Promise<string> {
  const source = path.join(base, 'source');
  await fs.mkdir(source, { recursive: true });
  await fs.writeFile(path.join(source, 'count.js'), `require('node:fs').appendFileSync(${JSON.stringify(counter)}, 'installed\\n');\n`);
  await fs.writeFile(path.join(source, 'cli.js'), "#!/usr/bin/env node\nconsole.log('tiny client 1.0.0');\n", { mode: 0o755 });
  await fs.writeFile(
    path.join(source, 'package.json'),
    JSON.stringify({
      name: 'ai-zen-tiny-client',
      version: '1.0.0',
      bin: { 'tiny-client': 'cli.js' },
      scripts: { postinstall: 'node count.js' },
    }),
  );
  const pins = path.join(base, 'pins');
  await fs.mkdir(pins);
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', pins], { cwd: source });
  const [packed] = JSON.parse(stdout) as [{ filename: string }];
  await fs.writeFile(
    path.join(pins, 'package.json'),
    JSON.stringify({ dependencies: { 'ai-zen-tiny-client': `file:${packed.filename}` } }),
  );
  await run('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], { cwd: pins });
  return pins;
}

describe('the test clients cache', () => {
  it('three workers asking at once for a client not yet cached get one install (npm ci ran once), the same folder, a working bin, and no half-made folder left', async () => {
    await using repo = await makeTempRepo({ git: false });
    const base = path.dirname(repo.root);
    const counter = path.join(base, 'installs.txt');
    const pin = readPin(await makeLocalClient(base, counter));
    expect(pin).toMatchObject({ packageName: 'ai-zen-tiny-client', version: '1.0.0' });
    const env = { ...process.env, XDG_CACHE_HOME: path.join(base, 'cache') };

    const folders = await Promise.all([ensureAgentClient(pin, env), ensureAgentClient(pin, env), ensureAgentClient(pin, env)]);
    expect(new Set(folders)).toEqual(new Set([clientFolder(pin, env)]));
    expect(clientFolder(pin, env)).toBe(path.join(base, 'cache', 'ai-zen-test-clients', 'ai-zen-tiny-client@1.0.0'));
    expect(await fs.readFile(counter, 'utf8')).toBe('installed\n');
    expect((await run(path.join(folders[0]!, 'node_modules', '.bin', 'tiny-client'), [])).stdout).toBe('tiny client 1.0.0\n');
    const left = await fs.readdir(path.join(base, 'cache', 'ai-zen-test-clients'));
    expect(left.filter((name) => name.includes('.partial-'))).toEqual([]);

    // Cached: the next run installs nothing.
    await ensureAgentClient(pin, env);
    expect(await fs.readFile(counter, 'utf8')).toBe('installed\n');
  }, 120_000);

  it('a client that cannot be installed fails the tests that need it with one clear error naming it and npm’s words, and leaves nothing in the cache', async () => {
    await using repo = await makeTempRepo({ git: false });
    const base = path.dirname(repo.root);
    const pins = await makeLocalClient(base, path.join(base, 'installs.txt'));
    // The package is not what its lockfile pins (as a tampered download would be): npm refuses it.
    const lockFile = path.join(pins, 'package-lock.json');
    const lock = JSON.parse(await fs.readFile(lockFile, 'utf8')) as { packages: Record<string, { integrity?: string }> };
    lock.packages['node_modules/ai-zen-tiny-client']!.integrity = `sha512-${Buffer.alloc(64, 7).toString('base64')}`;
    await fs.writeFile(lockFile, JSON.stringify(lock));
    const pin = readPin(pins);
    const env = { ...process.env, XDG_CACHE_HOME: path.join(base, 'cache') };
    await expect(ensureAgentClient(pin, env)).rejects.toThrow(
      /^could not install the real ai-zen-tiny-client@1\.0\.0 the tests run into .*: npm ci exited \d+/,
    );
    expect(await fs.readdir(path.join(base, 'cache', 'ai-zen-test-clients'))).toEqual([]);
  }, 120_000);
});
