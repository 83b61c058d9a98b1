// The real agent clients the tests run offline (Claude Code, Codex) are not dependencies of ai-zen:
// together they were ~800 MB of every `npm ci`. Each is pinned, with its lockfile
// (integrity hashes included), in test/support/agent-clients/<client>/, and installed on first use
// into a cache shared by every checkout and every run:
// `${XDG_CACHE_HOME:-~/.cache}/ai-zen-test-clients/<package>@<version>`.
//
// Race-free across vitest workers and parallel runs: one OS-held lock per client (the kernel frees
// it when its holder dies, however it dies), the install goes to a folder of its own and is renamed
// into place whole, so a folder at the final path is always a complete install. A failed install
// throws one clear error: the tests that need the client fail, they are never skipped.
import { spawn } from 'node:child_process';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireLock, type HeldLock } from '../../src/lock/os-lock.js';

const PINS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'agent-clients');

/** How long one install may take (a cold download of ~400 MB on a slow line) and one wait for another's. */
const INSTALL_DEADLINE_MS = 15 * 60_000;
const LOCK_RETRY_MS = 250;

export interface AgentClientPin {
  /** Folder under test/support/agent-clients/ holding its package.json and package-lock.json. */
  readonly pins: string;
  readonly packageName: string;
  readonly version: string;
}

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The pinned client of `pinsFolder`: its package.json names exactly one dependency, and its
 * package-lock.json the version that is installed.
 */
export function readPin(pinsFolder: string): AgentClientPin {
  const manifest = JSON.parse(readFileSync(path.join(pinsFolder, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const names = Object.keys(manifest.dependencies ?? {});
  const [packageName] = names;
  if (names.length !== 1 || packageName === undefined) throw new Error(`${pinsFolder}/package.json must name exactly one dependency`);
  const lock = JSON.parse(readFileSync(path.join(pinsFolder, 'package-lock.json'), 'utf8')) as {
    packages?: Record<string, { version?: string }>;
  };
  const version = lock.packages?.[`node_modules/${packageName}`]?.version;
  if (!version) throw new Error(`${pinsFolder}/package-lock.json does not pin ${packageName}`);
  return { pins: pinsFolder, packageName, version };
}

/** The pin of one of the clients the tests run. */
export function agentClientPin(
  client: 'claude-code' | 'codex' | 'qwen-code' | 'pi' | 'copilot' | 'gemini' | 'cline' | 'opencode' | 'kilo',
): AgentClientPin {
  return readPin(path.join(PINS, client));
}

/** `${XDG_CACHE_HOME:-~/.cache}/ai-zen-test-clients`. */
export function clientCacheRoot(env: Env = process.env): string {
  const base =
    env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(env.HOME ?? os.homedir(), '.cache');
  return path.join(base, 'ai-zen-test-clients');
}

/** Where the pinned client is (or will be) installed: `<root>/<package>@<version>`. */
export function clientFolder(pin: AgentClientPin, env: Env = process.env): string {
  return path.join(clientCacheRoot(env), `${pin.packageName}@${pin.version}`);
}

/** The installed package's own folder, once installed. */
export function installedPackage(pin: AgentClientPin, env: Env = process.env): string {
  return path.join(clientFolder(pin, env), 'node_modules', ...pin.packageName.split('/'));
}

function isInstalled(pin: AgentClientPin, env: Env): boolean {
  try {
    const manifest = JSON.parse(readFileSync(path.join(installedPackage(pin, env), 'package.json'), 'utf8')) as { version?: string };
    return manifest.version === pin.version;
  } catch {
    return false;
  }
}

/**
 * Installs the pinned client into the cache unless it is there, and returns its folder
 * (`node_modules/.bin/…` inside). Concurrent callers, in this process or others, wait for one install.
 */
export async function ensureAgentClient(pin: AgentClientPin, env: Env = process.env): Promise<string> {
  const folder = clientFolder(pin, env);
  if (isInstalled(pin, env)) return folder;
  const root = clientCacheRoot(env);
  await fs.mkdir(path.dirname(folder), { recursive: true });
  const lock = await waitForLock(`install-${pin.packageName.replace(/[^A-Za-z0-9._-]/g, '_')}`, root, pin);
  try {
    if (isInstalled(pin, env)) return folder; // another worker installed it while we waited
    await install(pin, folder, env);
    return folder;
  } finally {
    await lock.release();
  }
}

async function waitForLock(name: string, directory: string, pin: AgentClientPin): Promise<HeldLock> {
  const deadline = Date.now() + INSTALL_DEADLINE_MS;
  for (;;) {
    const lock = await acquireLock(name, { directory, holder: JSON.stringify({ kind: 'test-client-install', pid: process.pid }) });
    if (lock) return lock;
    if (Date.now() > deadline)
      throw new Error(`${pin.packageName}@${pin.version}: another process has been installing it into ${directory} for too long`);
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
}

async function install(pin: AgentClientPin, folder: string, env: Env): Promise<void> {
  const partial = `${folder}.partial-${process.pid}`;
  await fs.rm(partial, { recursive: true, force: true });
  await fs.mkdir(partial, { recursive: true });
  // The lockfile and what it may name beside it (a local tarball); never a node_modules of its own.
  await fs.cp(pin.pins, partial, { recursive: true, filter: (source) => path.basename(source) !== 'node_modules' });
  const npm = await runNpm(['ci', '--no-audit', '--no-fund', '--prefix', partial], partial, env);
  const what = `the real ${pin.packageName}@${pin.version} the tests run`;
  if (npm.code !== 0) {
    await fs.rm(partial, { recursive: true, force: true });
    const tail = npm.output.trim().split('\n').slice(-8).join('\n');
    throw new Error(
      `could not install ${what} into ${folder}: npm ci exited ${npm.code ?? 'on a signal'} (it needs the npm registry once, then the cache serves every run)\n${tail}`,
    );
  }
  if (!existsSync(path.join(partial, 'node_modules', ...pin.packageName.split('/'), 'package.json'))) {
    await fs.rm(partial, { recursive: true, force: true });
    throw new Error(`could not install ${what}: npm ci succeeded but left no ${pin.packageName} in ${partial}`);
  }
  // Whole or not at all: the final name appears only when the install is complete.
  await fs.rm(folder, { recursive: true, force: true });
  await fs.rename(partial, folder);
}

/**
 * `npm` with none of the `npm_*` settings of a surrounding `npm test` (its prefix and package
 * would send the install to this repository), but the user's own cache and registry.
 */
function runNpm(args: readonly string[], cwd: string, env: Env): Promise<{ code: number | null; output: string }> {
  const clean: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (/^npm_/i.test(key) && !/^npm_config_(cache|registry|userconfig|globalconfig)$/i.test(key)) continue;
    clean[key] = value;
  }
  return new Promise((resolve) => {
    const child = spawn('npm', [...args], { cwd, env: clean, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), INSTALL_DEADLINE_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, output: `${output}\n${error.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
