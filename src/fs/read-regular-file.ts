// Reading a file a cloned repo ships (its config, its skill, its hooks) the way it will be used:
// through a symlink, as the loader and the shell would follow it, but only when what it leads to
// is a regular file of bounded size. A link to /dev/zero, a FIFO or a 10 GB file is refused with a
// reason instead of hanging the reader or filling its memory (a SKILL.md linked to
// /dev/zero cost 650 MB per handoff). Opened by openRegularFile: a FIFO does not wait for a writer.
import { createHash } from 'node:crypto';
import type fs from 'node:fs/promises';
import { NotRegularFileError, openRegularFile } from './open-regular-file.js';

export type RegularFileRead =
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly missing: boolean; readonly reason: string };

/** The bytes of `file` (symlinks followed) when it is a regular file of at most `maxBytes`. */
export async function readRegularFile(file: string, maxBytes: number): Promise<RegularFileRead> {
  let handle: fs.FileHandle;
  try {
    handle = await openRegularFile(file, { follow: true });
  } catch (error) {
    if (NotRegularFileError.isInstance(error)) return { ok: false, missing: false, reason: 'not a regular file' };
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return { ok: false, missing: code === 'ENOENT', reason: code === 'ENOENT' ? 'missing' : `cannot be read (${code})` };
  }
  try {
    const stat = await handle.stat();
    if (stat.size > maxBytes) return { ok: false, missing: false, reason: `larger than ${maxBytes} bytes` };
    // Read one byte past the cap: a file that grew after fstat is still refused, never read whole.
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) return { ok: false, missing: false, reason: `larger than ${maxBytes} bytes` };
    return { ok: true, bytes: buffer.subarray(0, length) };
  } catch (error) {
    return { ok: false, missing: false, reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  } finally {
    await handle.close();
  }
}

/** Past this size a file is known by its identity instead of its bytes (below). */
const HASHED_BYTES_LIMIT = 16 * 1024 * 1024;

/**
 * sha256 of what `file` leads to (symlinks followed) with its executable bit, or null when that is
 * not a regular file. Streamed: a hook may be a binary. A file over 16 MiB is fingerprinted by its
 * inode, size and change time instead, so a clone cannot make every trust check hash gigabytes;
 * any rewrite (a `git pull`) changes the change time.
 */
export async function fingerprintRegularFile(file: string): Promise<{ readonly sha256: string; readonly executable: boolean } | null> {
  let handle: fs.FileHandle;
  try {
    handle = await openRegularFile(file, { follow: true });
  } catch {
    return null;
  }
  try {
    const stat = await handle.stat({ bigint: true });
    const executable = (stat.mode & 0o111n) !== 0n;
    if (stat.size > BigInt(HASHED_BYTES_LIMIT)) {
      const identity = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
      return { sha256: `large:${createHash('sha256').update(identity).digest('hex')}`, executable };
    }
    const hash = createHash('sha256');
    for await (const chunk of handle.createReadStream({ autoClose: false })) hash.update(chunk as Buffer);
    return { sha256: hash.digest('hex'), executable };
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}
