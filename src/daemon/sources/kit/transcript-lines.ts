// A transcript read line by line, start to end, as a stream: its evidence is gathered in bounded
// memory for the reading, whatever the file's size (a whole-file string fails past 512 MB in V8,
// and a 450 MB transcript read whole held the daemon at 1.8 GB).
import { createInterface } from 'node:readline';
import { openRegularFile } from '../../../fs/open-regular-file.js';

/**
 * Each line of `file` in order (no trailing newline); a torn last line is passed as it is. Opened by
 * openRegularFile: a FIFO at a transcript's path is refused at once, never waited on.
 */
export async function* transcriptLines(file: string): AsyncGenerator<string> {
  const stream = (await openRegularFile(file)).createReadStream({ encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) yield line;
  } finally {
    lines.close();
    stream.destroy();
  }
}

/** What gathers a transcript's evidence line by line, and what it makes of them at the end. */
export interface TranscriptCollector<T> {
  line(text: string): void;
  result(): T;
}

/** Feeds every line of `file` to the collector and returns what it makes of them. */
export async function foldTranscript<T>(file: string, collector: TranscriptCollector<T>): Promise<T> {
  for await (const line of transcriptLines(file)) collector.line(line);
  return collector.result();
}

/** The same over lines already in memory (a test's, a bench's). */
export function foldLines<T>(lines: readonly string[], collector: TranscriptCollector<T>): T {
  for (const line of lines) collector.line(line);
  return collector.result();
}

/** A transcript's reader from its collector: of a file (streamed), or of lines already in memory. */
export function transcriptReader<A extends unknown[], T>(collector: (...args: A) => TranscriptCollector<T>) {
  return {
    file: (file: string, ...args: A): Promise<T> => foldTranscript(file, collector(...args)),
    lines: (lines: readonly string[], ...args: A): T => foldLines(lines, collector(...args)),
  };
}
