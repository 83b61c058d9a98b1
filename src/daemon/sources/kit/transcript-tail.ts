// The end of an agent's transcript, read by a hook that must know what the agent wrote last (the
// request a Gemini turn answered; whether Qwen Code has written the reply its Stop names). Bounded,
// a regular file only (never waits on a FIFO), and never written.
import { closeSync, fstatSync, readSync } from 'node:fs';
import { openRegularFileSync } from '../../../fs/open-regular-file.js';

/** The last `bytes` of the file as UTF-8 (a line cut at the start is the reader's to skip); null: no regular file there. */
export function readTail(file: string, bytes = 256 * 1024): string | null {
  let handle: number | null = null;
  try {
    handle = openRegularFileSync(file);
    const size = fstatSync(handle).size;
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    readSync(handle, buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } catch {
    return null;
  } finally {
    if (handle !== null) closeSync(handle);
  }
}
