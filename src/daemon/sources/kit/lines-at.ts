// The lines at known places of a transcript, read again one at a time: a reader that learns only at
// the end which lines it wants (pi's branch, Gemini's rebuilt conversation) keeps their places on the
// first pass and reads just those on the second, so its memory is one line, whatever the file's size.
import { openRegularFile } from '../../../fs/open-regular-file.js';
import type { LinePlace } from './transcript-lines.js';

/**
 * The text of each line at `places`, in the order given (no `\r` of a CRLF). A line read short (the
 * file was cut since) is passed as it was read: its reader's parse fails on it, and it is left out.
 */
export async function* linesAt(file: string, places: Iterable<LinePlace>): AsyncGenerator<string> {
  const handle = await openRegularFile(file);
  let buffer = Buffer.allocUnsafe(64 * 1024);
  try {
    for (const place of places) {
      // One buffer for the reading, grown to the longest line wanted (a first pass bounds every line).
      if (place.bytes > buffer.length) buffer = Buffer.allocUnsafe(place.bytes);
      const { bytesRead } = await handle.read(buffer, 0, place.bytes, place.offset);
      const text = buffer.toString('utf8', 0, bytesRead);
      yield text.endsWith('\r') ? text.slice(0, -1) : text;
    }
  } finally {
    await handle.close().catch(() => {});
  }
}

/** The same over lines already in memory, each line's place being its index (a test's, a bench's). */
export function* memoryLinesAt(lines: readonly string[], places: Iterable<LinePlace>): Generator<string> {
  for (const place of places) yield lines[place.offset] ?? '';
}

/** Lines already in memory with the places memoryLinesAt reads them by. */
export function placedMemoryLines(lines: readonly string[]): { text: string; offset: number; bytes: number }[] {
  return lines.map((text, offset) => ({ text, offset, bytes: 0 }));
}
