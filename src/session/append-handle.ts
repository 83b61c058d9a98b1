// An append-only handle on one session file. Each line goes out in one write on an fd opened
// with O_APPEND, so a crash leaves at worst a torn last line (readers skip it), never a hole
// or a mixed line. O_NOFOLLOW plus the confinement walk keep it inside the project.
import { constants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AiZenError } from '../errors.js';
import { locateInsideRoot } from '../fs/confine.js';
import { fsyncDirectory } from '../fs/safe-write.js';

// O_NONBLOCK: a FIFO planted in place of a session file must not hang us (no effect on files).
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW | constants.O_NONBLOCK;

async function requireRegularFile(handle: FileHandle, file: string): Promise<void> {
  if ((await handle.stat()).isFile()) return;
  await handle.close();
  throw new AiZenError('session', `${file} is not a regular file`);
}

async function confinedForAppend(root: string, file: string): Promise<string> {
  const found = await locateInsideRoot(root, file);
  if (!found.ok) throw new AiZenError('confinement', `refusing session file ${file}: ${found.reason}`);
  if (found.location.finalIsSymlink) throw new AiZenError('confinement', `refusing session file ${file}: it is a symbolic link`);
  return found.location.absolute;
}

export class AppendHandle {
  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
  ) {}

  /** Opens an existing file for appending. */
  static async open(root: string, file: string): Promise<AppendHandle> {
    const absolute = await confinedForAppend(root, file);
    let handle: FileHandle;
    try {
      handle = await fs.open(absolute, APPEND_FLAGS);
    } catch (error) {
      throw new AiZenError('session', `cannot open ${file} for appending (${(error as NodeJS.ErrnoException).code ?? 'error'})`, {
        cause: error,
      });
    }
    await requireRegularFile(handle, file);
    return new AppendHandle(absolute, handle);
  }

  /** Creates a new file (never an existing one) and makes its creation durable. */
  static async create(root: string, file: string, firstLines: string): Promise<AppendHandle> {
    const absolute = await confinedForAppend(root, file);
    await fs.mkdir(path.dirname(absolute), { recursive: true });
    const handle = await fs.open(absolute, APPEND_FLAGS | constants.O_CREAT | constants.O_EXCL, 0o644);
    const appender = new AppendHandle(absolute, handle);
    try {
      await appender.write(firstLines);
      await handle.sync();
      await fsyncDirectory(path.dirname(absolute));
    } catch (error) {
      await handle.close();
      throw error;
    }
    return appender;
  }

  /** One write per call; a short write (disk full, signal) is finished by more writes. */
  async write(text: string): Promise<void> {
    const buffer = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < buffer.length) {
      const { bytesWritten } = await this.handle.write(buffer, offset, buffer.length - offset);
      offset += bytesWritten;
    }
  }

  async sync(): Promise<void> {
    await this.handle.sync();
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
