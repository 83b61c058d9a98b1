// The predecessors' sessions as the MCP server reads them, in bounded memory and once per file:
// a session file is read as a stream, line by line, each message's text cut past a bound, and what
// was read is kept under the file's identity (device, inode, size, mtime) for the next call, shared
// by calls that ask for it at once. A 300 MB predecessor read whole on every call held 1.6 GB and
// took 4–8 s each time; eight calls at once held 4.3 GB.
import type { Stats } from 'node:fs';
import { createInterface } from 'node:readline';
import { openRegularFile } from '../../../fs/open-regular-file.js';
import type { ChatMessage, HeaderLine, SessionLine } from '../../../session/format.js';
import { parseSessionLine } from '../../../session/parse-line.js';

/** A message's text past this many characters is cut (read_message says so); the session file has the rest. */
export const MAX_MESSAGE_CHARACTERS = 256 * 1024;
/** What the cache keeps at most, in characters of message text: past it the least recently used go. */
const MAX_CACHED_CHARACTERS = 64 * 1024 * 1024;

export interface ChainSession {
  readonly header: HeaderLine;
  readonly lines: readonly SessionLine[];
}

interface Entry {
  readonly session: Promise<ChainSession>;
  characters: number;
}

const cache = new Map<string, Entry>();

export function fileIdentity(file: string, stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${file}`;
}

/** The session read by `load` for this file identity: from the cache, from a read under way, or read now. */
export function cachedSession(identity: string, load: () => Promise<{ session: ChainSession; characters: number }>): Promise<ChainSession> {
  const hit = cache.get(identity);
  if (hit) {
    // Most recently used last: eviction takes from the front.
    cache.delete(identity);
    cache.set(identity, hit);
    return hit.session;
  }
  const session = load().then(
    (loaded) => {
      entry.characters = loaded.characters;
      evict();
      return loaded.session;
    },
    (error: unknown) => {
      cache.delete(identity);
      throw error;
    },
  );
  const entry: Entry = { session, characters: 0 };
  cache.set(identity, entry);
  return session;
}

function evict(): void {
  let total = [...cache.values()].reduce((sum, entry) => sum + entry.characters, 0);
  for (const [identity, entry] of cache) {
    if (total <= MAX_CACHED_CHARACTERS || cache.size <= 1) break;
    cache.delete(identity);
    total -= entry.characters;
  }
}

/** A message with its text content cut to the bound; how many characters it keeps. */
export function boundedMessage(message: ChatMessage): { message: ChatMessage; characters: number } {
  const content = message.content;
  if (typeof content !== 'string') {
    const characters = JSON.stringify(content ?? '').length;
    return { message, characters };
  }
  if (content.length <= MAX_MESSAGE_CHARACTERS) return { message, characters: content.length };
  const cut = `${content.slice(0, MAX_MESSAGE_CHARACTERS)}\n[cut by ai-zen: ${content.length - MAX_MESSAGE_CHARACTERS} more characters are in the session file]`;
  return { message: { ...message, content: cut }, characters: cut.length };
}

/**
 * An ai-zen session file read as a stream: its header (which must name `id`) and its message lines,
 * each bounded. Opened without waiting on a FIFO; a line that does not parse is skipped.
 */
export async function readAiZenSession(file: string, id: string): Promise<{ session: ChainSession; characters: number }> {
  const handle = await openRegularFile(file);
  const stream = handle.createReadStream({ encoding: 'utf8' });
  const reader = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let header: HeaderLine | null = null;
  const lines: SessionLine[] = [];
  let characters = 0;
  try {
    for await (const text of reader) {
      if (text.trim() === '') continue;
      const parsed = parseSessionLine(text);
      if (!parsed.ok) continue;
      const line = parsed.line;
      if (header === null) {
        if (line.type !== 'session') throw new Error(`session ${id} has no valid header line`);
        if (line.id !== id) throw new Error(`session file ${id} holds session ${line.id}`);
        header = line;
        continue;
      }
      if (line.type === 'session') continue;
      if (line.type === 'message') {
        const bounded = boundedMessage(line.message);
        characters += bounded.characters;
        lines.push({ ...line, message: bounded.message });
      } else lines.push(line);
    }
  } finally {
    reader.close();
    stream.destroy();
  }
  if (header === null) throw new Error(`session ${id} has no valid header line`);
  return { session: { header, lines }, characters };
}
