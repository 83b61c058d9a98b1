// Opening a file another program writes — an agent's transcript, its settings, its liveness
// records — without waiting on it. O_NONBLOCK: a FIFO's open() returns at once instead of holding a
// thread-pool thread for ever (four such opens stall every fs call of the process, and its exit).
// O_NOFOLLOW unless told: the file is the path's own, not what a link planted there leads to. Then
// the descriptor is fstat()ed, so what is read is a regular file whatever the path was swapped for.
import fsSync, { constants, promises as fs } from 'node:fs';

/** The path is not a regular file (a FIFO, a device, a folder, a symlink): it is not read. */
export class NotRegularFileError extends Error {
  readonly code = 'ENOTREGULAR';
  constructor(
    readonly file: string,
    readonly what: string,
  ) {
    super(`${file} is ${what}, not a regular file`);
    this.name = 'NotRegularFileError';
  }

  static isInstance(value: unknown): value is NotRegularFileError {
    return value instanceof Error && (value as { code?: unknown }).code === 'ENOTREGULAR';
  }
}

export interface OpenRegularOptions {
  /** Follow a symlink at the path (a file the user links on purpose); the default refuses one. */
  readonly follow?: boolean;
}

/** What a path holds, in words, when it is not a regular file. */
export function kindOf(stats: fsSync.Stats): string {
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

function flagsOf(options: OpenRegularOptions): number {
  return constants.O_RDONLY | constants.O_NONBLOCK | (options.follow ? 0 : constants.O_NOFOLLOW);
}

function refusal(file: string, error: unknown): unknown {
  return (error as NodeJS.ErrnoException).code === 'ELOOP' ? new NotRegularFileError(file, 'a symbolic link') : error;
}

/** The file opened for reading; NotRegularFileError when it is anything else, fs errors (ENOENT, …) as they are. */
export async function openRegularFile(file: string, options: OpenRegularOptions = {}): Promise<fs.FileHandle> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, flagsOf(options));
  } catch (error) {
    throw refusal(file, error);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotRegularFileError(file, kindOf(stats));
    return handle;
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

/** openRegularFile for synchronous readers: the descriptor, which the caller closes. */
export function openRegularFileSync(file: string, options: OpenRegularOptions = {}): number {
  let fd: number;
  try {
    fd = fsSync.openSync(file, flagsOf(options));
  } catch (error) {
    throw refusal(file, error);
  }
  try {
    const stats = fsSync.fstatSync(fd);
    if (!stats.isFile()) throw new NotRegularFileError(file, kindOf(stats));
    return fd;
  } catch (error) {
    fsSync.closeSync(fd);
    throw error;
  }
}

/** The whole of a regular file as UTF-8 (fs.readFile's job, through openRegularFile). */
export async function readRegularText(file: string, options: OpenRegularOptions = {}): Promise<string> {
  const handle = await openRegularFile(file, options);
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** The first `bytes` of a regular file (or all of a shorter one): a head, never the whole of a large file. */
export async function readRegularHead(file: string, bytes: number): Promise<Buffer> {
  const handle = await openRegularFile(file);
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** readRegularText for synchronous readers. */
export function readRegularTextSync(file: string, options: OpenRegularOptions = {}): string {
  const fd = openRegularFileSync(file, options);
  try {
    return fsSync.readFileSync(fd, 'utf8');
  } finally {
    fsSync.closeSync(fd);
  }
}
