// A transcript read line by line, start to end, as a stream: its evidence is gathered in bounded
// memory for the reading, whatever the file's size (a whole-file string fails past 512 MB in V8,
// and a 450 MB transcript read whole held the daemon at 1.8 GB). One line is bounded too: a line
// past MAX_LINE_BYTES is skipped, never gathered, and the reader is told.
import { openRegularFile } from '../../../fs/open-regular-file.js';

/** A line longer than this is skipped: its bytes are never held (a client writes no line near it). */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

/** A line left out for its length: where it starts in the file and how long it is. */
export interface SkippedLine {
  readonly offset: number;
  readonly bytes: number;
}

export interface LineOptions {
  readonly maxLineBytes?: number;
  readonly onSkippedLine?: (line: SkippedLine) => void;
  /** Asked before each line: true ends the reading there (a reader that has what it wanted). */
  readonly done?: () => boolean;
}

const NEWLINE = 0x0a;
/** Read this much at a time, into one buffer the whole reading reuses (no allocation per chunk). */
const CHUNK_BYTES = 256 * 1024;

/** Where a line is in its file: its first byte, and its length without the newline. */
export interface LinePlace {
  readonly offset: number;
  readonly bytes: number;
}

/** A line and where it is: a reader that needs only a few lines again keeps their places, not their text. */
export interface PlacedLine extends LinePlace {
  readonly text: string;
}

/**
 * Each line of `file` in order (no trailing newline, nor the `\r` of a CRLF); a torn last line is
 * passed as it is. Opened by openRegularFile: a FIFO at a transcript's path is refused at once, never waited on.
 */
export function transcriptLines(file: string, options: LineOptions = {}): AsyncGenerator<string> {
  return linesOf(file, options, (text) => text);
}

/** Each line of `file` in order, as transcriptLines, with its place in the file. */
export function placedLines(file: string, options: LineOptions = {}): AsyncGenerator<PlacedLine> {
  return linesOf(file, options, (text, offset, bytes) => ({ text, offset, bytes }));
}

async function* linesOf<T>(
  file: string,
  options: LineOptions,
  make: (text: string, offset: number, bytes: number) => T,
): AsyncGenerator<T> {
  const max = options.maxLineBytes ?? MAX_LINE_BYTES;
  const handle = await openRegularFile(file);
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  // The start of a line that runs past a chunk, copied; `skipping` once the line is past the bound.
  let carry = Buffer.allocUnsafe(0);
  let carried = 0;
  let skipping = false;
  let lineStart = 0;
  let offset = 0;
  const text = (from: number, to: number): string => {
    let line: string;
    if (carried === 0) line = chunk.toString('utf8', from, to);
    else {
      keep(from, to);
      line = carry.toString('utf8', 0, carried);
      // A long line's room is not kept for the short ones after it.
      if (carry.length > CHUNK_BYTES) carry = Buffer.allocUnsafe(0);
    }
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  };
  /** Appends chunk[from, to) to the carried start of the line. */
  const keep = (from: number, to: number) => {
    const needed = carried + (to - from);
    if (needed > carry.length) {
      const grown = Buffer.allocUnsafe(Math.min(Math.max(needed, carry.length * 2, 64 * 1024), max));
      carry.copy(grown, 0, 0, carried);
      carry = grown;
    }
    chunk.copy(carry, carried, from, to);
    carried = needed;
  };
  const skipped = (bytes: number) => options.onSkippedLine?.({ offset: lineStart, bytes });
  try {
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      let from = 0;
      for (let end = chunk.indexOf(NEWLINE, 0); end !== -1 && end < bytesRead; end = chunk.indexOf(NEWLINE, from)) {
        if (skipping || carried + (end - from) > max) skipped(offset + end - lineStart);
        else {
          if (options.done?.()) return;
          yield make(text(from, end), lineStart, offset + end - lineStart);
        }
        carried = 0;
        skipping = false;
        from = end + 1;
        lineStart = offset + from;
      }
      if (from < bytesRead && !skipping) {
        if (carried + (bytesRead - from) > max) {
          skipping = true;
          carried = 0;
        } else keep(from, bytesRead);
      }
      offset += bytesRead;
    }
    if (skipping) skipped(offset - lineStart);
    else if (carried > 0 && !options.done?.()) yield make(text(0, 0), lineStart, offset - lineStart);
  } finally {
    await handle.close().catch(() => {});
  }
}

/** What gathers a transcript's evidence line by line, and what it makes of them at the end. */
export interface TranscriptCollector<T> {
  line(text: string): void;
  result(): T;
  /** Whether it has what it wanted: the rest of the file is not read. */
  done?(): boolean;
}

/** Feeds every line of `file` to the collector and returns what it makes of them. */
export async function foldTranscript<T>(file: string, collector: TranscriptCollector<T>, options: LineOptions = {}): Promise<T> {
  const done = collector.done?.bind(collector);
  for await (const line of transcriptLines(file, { ...options, ...(done ? { done } : {}) })) collector.line(line);
  return collector.result();
}

/** The same over lines already in memory (a test's, a bench's). */
export function foldLines<T>(lines: readonly string[], collector: TranscriptCollector<T>): T {
  for (const line of lines) {
    if (collector.done?.()) break;
    collector.line(line);
  }
  return collector.result();
}

/** A transcript's reader from its collector: of a file (streamed), or of lines already in memory. */
export function transcriptReader<A extends unknown[], T>(collector: (...args: A) => TranscriptCollector<T>) {
  return {
    file: (file: string, options: LineOptions, ...args: A): Promise<T> => foldTranscript(file, collector(...args), options),
    lines: (lines: readonly string[], ...args: A): T => foldLines(lines, collector(...args)),
  };
}
