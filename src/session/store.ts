// Reading session files and the latest-session pointer. Writing a live session belongs to
// the conversation context (the one owner of the session id, R27); this is the shared ground.
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AiZenError } from '../errors.js';
import { resolveInsideRoot } from '../fs/confine.js';
import { removeStaleTempFiles, writeFileInside } from '../fs/safe-write.js';
import { silentLogger } from '../log/logger.js';
import type { ProjectPaths } from '../paths.js';
import { type HeaderLine, SessionId, type SessionLine } from './format.js';
import { parseSessionLine } from './parse-line.js';
import { assertSessionId, isSessionId } from './session-id.js';

export interface SkippedLine {
  /** 1-based, as an editor shows it. */
  readonly lineNumber: number;
  readonly reason: string;
}

export interface SessionContent {
  readonly header: HeaderLine;
  /** Every valid line after the header, in file order. */
  readonly lines: SessionLine[];
  readonly skipped: SkippedLine[];
  /** The file does not end with a newline (a torn write); appenders must start a fresh line. */
  readonly tornTail: boolean;
  /** Bytes read, so an appender can tell whether the file grew since. */
  readonly size: number;
}

export const LatestPointer = z.object({ id: SessionId, previousId: SessionId.nullable() });
export type LatestPointer = z.infer<typeof LatestPointer>;

export const SESSION_FILE_SUFFIX = '.jsonl';

export interface NumberedLine {
  readonly lineNumber: number;
  readonly line: SessionLine;
}

/** Splits session text into lines and parses them. Pure: the store and tests share it. */
export function parseSessionText(text: string): { lines: NumberedLine[]; skipped: SkippedLine[]; tornTail: boolean } {
  const parts = text.split('\n');
  const tail = parts.pop() ?? '';
  const lines: NumberedLine[] = [];
  const skipped: SkippedLine[] = [];
  const take = (raw: string, lineNumber: number, torn: boolean): void => {
    if (raw.trim() === '') return;
    const parsed = parseSessionLine(raw);
    if (parsed.ok) lines.push({ lineNumber, line: parsed.line });
    else skipped.push({ lineNumber, reason: torn ? `torn last line (${parsed.reason})` : parsed.reason });
  };
  for (const [index, raw] of parts.entries()) take(raw, index + 1, false);
  // We write each line with its newline in one write, so a tail without one was cut short —
  // unless it still parses whole (another writer that omits the final newline).
  if (tail !== '') take(tail, parts.length + 1, true);
  return { lines, skipped, tornTail: tail !== '' };
}

export class SessionStore {
  private readonly logger: Logger;

  constructor(
    readonly paths: ProjectPaths,
    options: { logger?: Logger } = {},
  ) {
    this.logger = options.logger ?? silentLogger();
  }

  /** The file of session `id`. Throws AiZenError('session') when `id` is not a valid id. */
  sessionFile(id: string): string {
    return path.join(this.paths.sessions, `${assertSessionId(id)}${SESSION_FILE_SUFFIX}`);
  }

  /** Where the file really is, refusing a sessions folder that leads out of the project. */
  async confinedSessionFile(id: string): Promise<string> {
    const file = this.sessionFile(id);
    const confined = await resolveInsideRoot(this.paths.root, file);
    if (!confined.ok) throw new AiZenError('confinement', `session ${id}: ${confined.reason}`);
    return confined.absolute;
  }

  async read(id: string): Promise<SessionContent> {
    const file = await this.confinedSessionFile(id);
    let buffer: Buffer;
    try {
      // O_NONBLOCK: a FIFO in place of a session file must not hang the reader.
      const handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      try {
        if (!(await handle.stat()).isFile()) throw Object.assign(new Error('not a regular file'), { code: 'not a regular file' });
        buffer = await handle.readFile();
      } finally {
        await handle.close();
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(error)})`;
      throw new AiZenError('session', `session ${id} ${why}`, { cause: error });
    }
    const parsed = parseSessionText(buffer.toString('utf8'));
    const skipped = [...parsed.skipped];
    const [first, ...rest] = parsed.lines;
    if (first?.line.type !== 'session') throw new AiZenError('session', `session ${id} has no valid header line`);
    const header = first.line;
    if (header.id !== id) throw new AiZenError('session', `session file ${id} holds session ${header.id}`);
    const lines: SessionLine[] = [];
    for (const { lineNumber, line } of rest) {
      // A second header means someone concatenated files; the lines around it still count.
      if (line.type === 'session') skipped.push({ lineNumber, reason: 'a second header line' });
      else lines.push(line);
    }
    skipped.sort((a, b) => a.lineNumber - b.lineNumber);
    for (const entry of skipped) this.logger.warn({ sessionId: id, ...entry }, 'skipped a session line');
    return { header, lines, skipped, tornTail: parsed.tornTail, size: buffer.length };
  }

  /** Ids of the session files present, sorted. Files that are not ours are ignored. */
  async list(): Promise<string[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.paths.sessions);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    return names
      .filter((name) => name.endsWith(SESSION_FILE_SUFFIX))
      .map((name) => name.slice(0, -SESSION_FILE_SUFFIX.length))
      .filter(isSessionId)
      .sort();
  }

  async exists(id: string): Promise<boolean> {
    const stats = await fs.lstat(this.sessionFile(id)).catch(() => null);
    return stats?.isFile() ?? false;
  }

  /** The session `--continue` opens; null when there is none or it is unreadable (logged). */
  async readLatestPointer(): Promise<LatestPointer | null> {
    const confined = await resolveInsideRoot(this.paths.root, this.paths.latestPointer);
    if (!confined.ok) {
      this.logger.warn({ reason: confined.reason }, 'ignoring the latest-session pointer');
      return null;
    }
    let text: string;
    try {
      text = await fs.readFile(confined.absolute, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new AiZenError('session', `cannot read ${this.paths.latestPointer}`, { cause: error });
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    const parsed = LatestPointer.safeParse(value);
    if (!parsed.success) {
      this.logger.warn({ file: this.paths.latestPointer }, 'ignoring a malformed latest-session pointer');
      return null;
    }
    return parsed.data;
  }

  /** Replaces the pointer atomically: readers see the old one or the new one. */
  async writeLatestPointer(pointer: LatestPointer): Promise<void> {
    const valid = LatestPointer.parse(pointer);
    await writeFileInside(this.paths.root, this.paths.latestPointer, `${JSON.stringify(valid)}\n`);
  }

  /** Removes temp files a killed writer left in the session, pointer and handoff folders. */
  async cleanup(): Promise<void> {
    for (const dir of [this.paths.sessions, this.paths.aiZen, this.paths.handoffs]) {
      const confined = await resolveInsideRoot(this.paths.root, dir);
      if (!confined.ok) continue;
      const removed = await removeStaleTempFiles(confined.absolute);
      if (removed.length > 0) this.logger.info({ dir, removed }, 'removed stale temp files');
    }
  }
}
