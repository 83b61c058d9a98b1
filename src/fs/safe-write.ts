// Atomic writes that never leave the project. fs.writeFile and write-file-atomic both write
// through a symlinked final component to its target, and O_NOFOLLOW only guards that last
// component (a symlinked `.ai-zen/handoffs` folder slips past it), so every component's real
// location is checked first (confine.ts) and a symlink as the final component is refused.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fsyncSync, openSync, promises as fs, rmSync, writeFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AiZenError } from '../errors.js';
import { locateInsideRoot } from './confine.js';

export interface WriteOptions {
  /** Fail with an error whose `code` is 'EEXIST' when the target already exists. */
  readonly exclusive?: boolean;
  /** The file's permission bits, exactly (the umask does not narrow them); default 0644. */
  readonly mode?: number;
}

const TEMP_SUFFIX = '.tmp';
// `.<name>.<pid>-<hex>.tmp`: the pid tells cleanup whether the writer is still alive.
const TEMP_PATTERN = /^\..+\.(\d+)-[0-9a-f]{12}\.tmp$/;
/** A temp file this old is stale even if its pid is alive again (pids are reused). */
const STALE_AFTER_MS = 60 * 60 * 1000;

export function tempFileName(target: string): string {
  return `.${path.basename(target)}.${process.pid}-${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`;
}

/** Makes a rename or a creation in `dir` durable. Some platforms cannot fsync a folder: skip there. */
export async function fsyncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await fs.open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM' && code !== 'ENOTSUP') throw error;
  } finally {
    await handle?.close();
  }
}

/**
 * Resolves `target` inside `root` for writing: refuses (AiZenError 'confinement') a location
 * outside the root or a final symlink, and creates missing parent folders inside the root.
 */
export async function prepareWriteInside(root: string, target: string): Promise<string> {
  const found = await locateInsideRoot(root, target);
  if (!found.ok) throw new AiZenError('confinement', `refusing to write ${target}: ${found.reason}`);
  if (found.location.finalIsSymlink) throw new AiZenError('confinement', `refusing to write ${target}: it is a symbolic link`);
  const absolute = found.location.absolute;
  if (absolute === found.root) throw new AiZenError('confinement', `refusing to write ${target}: it is the project root`);
  const dir = path.dirname(absolute);
  await fs.mkdir(dir, { recursive: true });
  // The folders may have changed between the check and mkdir; the real path settles it.
  const realDir = await fs.realpath(dir);
  if (realDir !== dir) throw new AiZenError('confinement', `refusing to write ${target}: its folder moved while writing`);
  return absolute;
}

/** A new temp file beside `target` holding `data`, synced; the caller renames or removes it. */
export async function writeTempFile(dir: string, target: string, data: string | Uint8Array, mode?: number): Promise<string> {
  const temp = path.join(dir, tempFileName(target));
  const handle = await fs.open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode ?? 0o644);
  try {
    // The mode asked for, not what the umask leaves of it: a 0600 file rewritten stays 0600, and no wider.
    if (mode !== undefined) await handle.chmod(mode);
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await fs.rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  return temp;
}

/**
 * writeTempFile in synchronous calls, for a caller whose swap must not yield to the event loop
 * between its steps (daemon/sources/settings-swap.ts): the same name, flags and exact mode.
 */
export function writeTempFileSync(dir: string, target: string, data: string | Uint8Array, mode: number): string {
  const temp = path.join(dir, tempFileName(target));
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    fchmodSync(fd, mode);
    writeFileSync(fd, data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  return temp;
}

async function createExclusive(temp: string, absolute: string, data: string | Uint8Array): Promise<void> {
  try {
    // link() fails with EEXIST instead of replacing: an atomic "create if absent".
    await fs.link(temp, absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
    // No hard links on this file system: O_EXCL still refuses an existing file.
    const handle = await fs.open(absolute, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

/**
 * Writes `data` to `target` atomically: a temp file in the same folder, fsync, rename, fsync
 * the folder. A reader sees the old content or the new, never a mix. Returns the absolute path.
 */
export async function writeFileInside(
  root: string,
  target: string,
  data: string | Uint8Array,
  options: WriteOptions = {},
): Promise<string> {
  const absolute = await prepareWriteInside(root, target);
  const dir = path.dirname(absolute);
  const temp = await writeTempFile(dir, absolute, data, options.mode);
  try {
    if (options.exclusive) {
      await createExclusive(temp, absolute, data);
      await fs.rm(temp, { force: true });
    } else {
      const existing = await fs.lstat(absolute).catch(() => null);
      if (existing?.isSymbolicLink()) {
        throw new AiZenError('confinement', `refusing to write ${target}: it is a symbolic link`);
      }
      // rename replaces a symlink that appeared meanwhile; it never writes through it.
      await fs.rename(temp, absolute);
    }
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await fsyncDirectory(dir);
  return absolute;
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes our temp files that a killed writer left behind in `dir` (not recursive): those
 * whose writer's pid is gone, and any older than an hour. A live writer's file is left alone.
 * Returns the names removed. A missing folder is fine.
 */
export async function removeStaleTempFiles(dir: string, now: () => number = Date.now): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = TEMP_PATTERN.exec(name);
    if (!match) continue;
    const file = path.join(dir, name);
    const stats = await fs.lstat(file).catch(() => null);
    if (!stats?.isFile()) continue;
    const stale = !isAlive(Number(match[1])) || now() - stats.mtimeMs > STALE_AFTER_MS;
    if (!stale) continue;
    await fs.rm(file, { force: true });
    removed.push(name);
  }
  return removed;
}
