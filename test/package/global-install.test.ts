// `npm pack` gives a tarball that `npm install -g ./ai-zen-*.tgz` installs with its
// runtime dependencies only, and both commands work from where npm put them, as a user runs them:
// by their bin links, not through this checkout.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { processAlive } from '../support/process-alive.js';
import { makeTempRepo } from '../support/temp-repo.js';
import { waitFor } from '../support/wait-for.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Manifest {
  readonly version: string;
  readonly dependencies: Record<string, string>;
  readonly devDependencies: Record<string, string>;
}

/** Every package name under a node_modules tree, nested ones included. */
async function installedPackages(nodeModules: string): Promise<string[]> {
  const names: string[] = [];
  const entries = await fs.readdir(nodeModules, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const folders = entry.name.startsWith('@')
      ? (await fs.readdir(path.join(nodeModules, entry.name))).map((name) => `${entry.name}/${name}`)
      : [entry.name];
    for (const name of folders) {
      names.push(name);
      names.push(...(await installedPackages(path.join(nodeModules, name, 'node_modules'))));
    }
  }
  return names;
}

describe('a real package', () => {
  it('a light install: npm ci brings no agent client, neither package.json nor its lockfile names Claude Code or Codex (the tests install them on demand)', async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(root, 'package.json'), 'utf8')) as Manifest;
    const lock = JSON.parse(await fs.readFile(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
    const clients = /^(node_modules\/)?(@anthropic-ai\/claude-code|@openai\/codex)/;
    const named = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.devDependencies), ...Object.keys(lock.packages)];
    expect(named.filter((name) => clients.test(name))).toEqual([]);
  });

  it('npm pack, then npm install -g of the tarball into a fresh prefix: runtime dependencies only, both commands answer --version, and the daemon starts and stops in a repo', async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(root, 'package.json'), 'utf8')) as Manifest;
    await using repo = await makeTempRepo();
    const work = path.dirname(repo.root);
    const packs = path.join(work, 'packs');
    await fs.mkdir(packs);
    // --ignore-scripts: `prepack` would build again; `npm test` has built dist/ already.
    const packed = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packs], {
      cwd: root,
      maxBuffer: 64 << 20,
    });
    const [report] = JSON.parse(packed.stdout) as [{ filename: string; size: number }];
    const tarball = path.join(packs, report.filename);
    expect(report.filename).toBe(`ai-zen-${manifest.version}.tgz`);
    expect(report.size).toBeLessThan(2 * 1024 * 1024);

    // A prefix of its own: nothing of this checkout's node_modules can be reached from there.
    const prefix = path.join(work, 'prefix');
    const npmEnv: Record<string, string> = { ...cleanEnv(), npm_config_update_notifier: 'false' };
    await run('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', tarball], {
      cwd: work,
      env: npmEnv,
      maxBuffer: 64 << 20,
    });
    const installed = path.join(prefix, 'lib', 'node_modules', 'ai-zen');
    const packages = new Set(await installedPackages(path.join(installed, 'node_modules')));
    for (const dependency of Object.keys(manifest.dependencies)) expect(packages).toContain(dependency);
    const devOnly = [...Object.keys(manifest.devDependencies), '@anthropic-ai/claude-code', '@openai/codex'].filter((name) =>
      packages.has(name),
    );
    expect(devOnly).toEqual([]);

    // The bin links, run as a shell would run them (their `#!/usr/bin/env node`), from a folder outside any checkout.
    const env = {
      ...cleanEnv(),
      PATH: `${path.join(prefix, 'bin')}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
      AI_ZEN_HOME: repo.home,
      XDG_RUNTIME_DIR: path.join(work, 'run'),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: path.join(repo.home, 'gitconfig'),
    };
    await fs.mkdir(env.XDG_RUNTIME_DIR, { mode: 0o700 });
    const bin = (name: string, args: readonly string[]) =>
      run(path.join(prefix, 'bin', name), [...args], { cwd: repo.root, env, timeout: 30_000 });
    for (const name of ['ai-zen', 'ai-zen-daemon']) {
      for (const flag of ['--version', '-v']) expect((await bin(name, [flag])).stdout).toBe(`${manifest.version}\n`);
    }

    const started = await bin('ai-zen-daemon', ['start']);
    const pid = Number(/pid\s+(\d+)/.exec(started.stdout)?.[1]);
    try {
      const status = JSON.parse((await bin('ai-zen-daemon', ['status', '--json'])).stdout) as {
        pid: number;
        repo: string;
        version: string;
      };
      expect(status).toMatchObject({ pid, repo: repo.root, version: manifest.version });
      expect((await bin('ai-zen-daemon', ['stop'])).stdout).toContain(`stopped (pid ${pid})`);
      await waitFor(() => !processAlive(pid), { timeoutMs: 10_000, message: 'the daemon process to be gone' });
    } finally {
      if (pid > 0 && processAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 300_000);
});

/** The environment of a person's shell, less what a surrounding `npm test` sets. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^npm_/i.test(key)) env[key] = value;
  }
  env.HOME = process.env.HOME ?? os.homedir();
  return env;
}
