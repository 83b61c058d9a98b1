// The lines at known places of a transcript, read again one at a time: a reader that learns only at
// the end which lines it wants (pi's branch, Gemini's rebuilt conversation) keeps their places on the
// first pass and reads just those on the second, so its memory is one line, whatever the file's size.
import { openRegularFile } from '../../../fs/open-regular-file.js';
import type { LinePlace } from './transcript-lines.js';

/** Read this much at a time from where a wanted line starts: the lines after it are mostly wanted too. */
const WINDOW_BYTES = 256 * 1024;

/**
 * The text of each line at `places`, in the order given (no `\r` of a CRLF). A line read short (the
 * file was cut since) is passed as it was read: its reader's parse fails on it, and it is left out.
 */
export async function* linesAt(file: string, places: Iterable<LinePlace>): AsyncGenerator<string> {
  const handle = await openRegularFile(file);
  // One window of the file, reused: a line inside it is taken from it, another starts a new window at
  // that line (grown to the longest line wanted: a first pass bounds every line). Places in the file's
  // order, as a branch's or a conversation's mostly are, read the file once, a window at a time.
  let window = Buffer.allocUnsafe(WINDOW_BYTES);
  let start = 0;
  let end = 0;
  try {
    for (const place of places) {
      if (place.offset < start || place.offset + place.bytes > end) {
        if (place.bytes > window.length) window = Buffer.allocUnsafe(place.bytes);
        const { bytesRead } = await handle.read(window, 0, window.length, place.offset);
        start = place.offset;
        end = start + bytesRead;
      }
      const from = place.offset - start;
      const text = window.toString('utf8', from, Math.min(from + place.bytes, end - start));
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
