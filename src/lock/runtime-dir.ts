// The per-user private runtime folder that holds ai-zen's sockets (IPC, and lock files where
// abstract sockets do not exist). Mode 0700 and owned by us, or we refuse: anyone who can
// write here could stand in for the daemon.
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AiZenError } from '../errors.js';
import type { Env } from '../paths.js';

export interface RuntimeDirOptions {
  readonly env?: Env;
  /** Defaults to process.getuid(); injectable so tests can prove the ownership check. */
  readonly uid?: number;
  readonly tmpdir?: string;
}

/** `$XDG_RUNTIME_DIR/ai-zen` when that folder is ours, else `<tmpdir>/ai-zen-<uid>`. */
export function runtimeDirPath(options: RuntimeDirOptions = {}): string {
  const uid = options.uid ?? currentUid();
  const xdg = (options.env ?? process.env).XDG_RUNTIME_DIR;
  if (xdg && path.isAbsolute(xdg) && ownedDirectory(xdg, uid)) return path.join(xdg, 'ai-zen');
  return path.join(options.tmpdir ?? os.tmpdir(), `ai-zen-${uid < 0 ? 'user' : uid}`);
}

/** Creates the folder if needed, then checks it (see ensurePrivateDir). */
export async function ensureRuntimeDir(options: RuntimeDirOptions = {}): Promise<string> {
  const uid = options.uid ?? currentUid();
  const dir = runtimeDirPath({ ...options, uid });
  await ensurePrivateDir(dir, uid);
  return dir;
}

/** A real folder (no symlink), owned by `uid`, mode 0700 (tightened if looser); created when missing. */
export async function ensurePrivateDir(dir: string, uid: number = currentUid()): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const stat = await fs.lstat(dir);
  if (!stat.isDirectory()) {
    throw new AiZenError('daemon', `runtime folder ${dir} is not a folder (a symlink or a file); refusing to use it`);
  }
  if (uid >= 0 && stat.uid !== uid) {
    throw new AiZenError('daemon', `runtime folder ${dir} belongs to uid ${stat.uid}, not to you (${uid}); refusing to use it`);
  }
  if ((stat.mode & 0o777) !== 0o700) await fs.chmod(dir, 0o700);
}

function currentUid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : -1;
}

function ownedDirectory(dir: string, uid: number): boolean {
  try {
    // Sync on purpose: a single stat, and it keeps runtimeDirPath usable where a path is needed at once.
    const stat = fsSync.lstatSync(dir);
    return stat.isDirectory() && (uid < 0 || stat.uid === uid);
  } catch {
    return false;
  }
}

