// Reads a growing file line by line, remembering where it stopped: each call reads only the bytes
// appended since the last one, in chunks with fs.read at the offset — never the whole file — so a
// 500 MB session costs the same per append as a small one. A partial last line is kept in memory
// until its newline arrives. A file that was truncated, replaced (another inode) or rewritten in
// place (even one that grew: its head or the bytes just before our offset changed) is read again
// from the start.
//
// Only a regular file is read (a FIFO named `*.jsonl` blocked a thread-pool thread for
// ever in open(); a symlink to /dev/zero was read without end): the path is lstat()ed first, opened
// with O_NOFOLLOW | O_NONBLOCK (neither waits for anything), and the open descriptor fstat()ed
// before a byte is read; anything else throws NotRegularFileError. A read never goes past the size
// the descriptor had when it was opened: a file that grows meanwhile is read on by the next call.
//
// Between reads of a session that is being written to, the file stays open (see `kept`): an append
// then costs no open() and close(). Whoever owns the reader closes it (`release`) when the path may
// name another file and when the session goes quiet.
import fsSync, { constants, promises as fs } from 'node:fs';
import { kindOf, NotRegularFileError } from '../../fs/open-regular-file.js';

// Where the error is defined now (fs/: every reader of an agent's file throws it); its importers here kept.
export { NotRegularFileError };

export type ResetReason = 'truncated' | 'replaced' | 'rewritten';

export interface RawLine {
  /** The line without its newline, decoded as UTF-8 (only whole lines are decoded). */
  readonly text: string;
  /** 1-based line number in the file. */
  readonly lineNumber: number;
  /** Byte offset of the line's first byte. */
  readonly offset: number;
}

export interface OversizedLine {
  readonly lineNumber: number;
  readonly offset: number;
  readonly bytes: number;
}

/** A file as one stat saw it: enough to tell that it changed since. */
export interface FileStamp {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
}

export function stampOfStats(stats: { size: number; mtimeMs: number; ctimeMs: number; ino: number }): FileStamp {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}

export interface LineReadResult {
  /** Set when the file was read again from the start; the consumer must drop what it derived before. */
  readonly reset: ResetReason | null;
  /** The file does not exist (any more); nothing was read. */
  readonly missing: boolean;
  /** Bytes of appended content read by this call (equals the bytes appended since the last call). */
  readonly bytesRead: number;
  /** Bytes re-read to check that the file is still the one we read (constant per call, never the file). */
  readonly checkBytesRead: number;
  readonly linesRead: number;
  /** The file as it was when this read began, before any byte of it was read; null when missing, or when `stampLater`. */
  readonly stamp: FileStamp | null;
  /**
   * Read through the descriptor kept open with no stat before it (the stat is a syscall more between
   * an append and its news): `stampNow()` gives the stamp, once the news is out.
   */
  readonly stampLater?: true;
}

export interface ReadOptions {
  /** The path still names the file kept open since the last read (see `read`). */
  readonly sameFile?: boolean;
}

export interface IncrementalReaderOptions {
  readonly chunkSize?: number;
  /** A line longer than this is skipped (reported through onOversized) instead of held in memory. */
  readonly maxLineBytes?: number;
}

/** Opens without following a final symlink and without waiting (a FIFO with no writer). */
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function refuseUnlessRegular(file: string, stats: fsSync.Stats): void {
  if (!stats.isFile()) throw new NotRegularFileError(file, kindOf(stats));
}

function isNoFollowRefusal(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ELOOP';
}

/** Bytes of the head kept as the file's fingerprint. */
const HEAD_BYTES = 256;
/** Appends up to this size are read with synchronous calls (see readAppendSync). */
const SYNC_READ_LIMIT = 256 * 1024;
/** Bytes just before the read position kept to notice a rewrite past the head. */
const BOUNDARY_BYTES = 32;
/** An append to a file kept open is read in one read of up to this size; a longer one takes the path with a stat. */
const KEPT_READ_BYTES = 64 * 1024;
/** That read's buffer, one for the process: the reads are synchronous, and nothing keeps a slice of it. */
let keptReadBuffer: Buffer | null = null;

export interface LineSink {
  /** The file is read again from the start: drop what was derived from it, before the first new line. */
  reset?(reason: ResetReason): void;
  line(line: RawLine): void;
  oversized?(line: OversizedLine): void;
}

export class IncrementalLineReader {
  private identity: { dev: number; ino: number } | null = null;
  /** Bytes consumed from the file so far: complete lines plus the pending partial line. */
  private position = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The current line is over maxLineBytes: drop its bytes up to its newline. */
  private dropping: { offset: number; bytes: number } | null = null;
  private lineNumber = 0;
  private head = Buffer.alloc(0);
  private boundary = Buffer.alloc(0);
  private lastStat: { mtimeMs: number; ctimeMs: number } | null = null;
  private totals = { bytesRead: 0, checkBytesRead: 0 };
  /**
   * The file as the last synchronous read left it open, or null. A descriptor stays on its file
   * whatever happens to the path, so it is trusted only while the owner has seen nothing that may
   * have changed which file the path names (a rename in the folder, a pass that finds the path's
   * stamp different): it calls `release` then. A file unlinked since (deleted, or replaced by a
   * rename over it) has no links left, and the read goes back to the path.
   */
  private kept: number | null = null;
  private readonly chunkSize: number;
  private readonly maxLineBytes: number;

  constructor(
    readonly file: string,
    options: IncrementalReaderOptions = {},
  ) {
    this.chunkSize = options.chunkSize ?? 64 * 1024;
    this.maxLineBytes = options.maxLineBytes ?? 64 * 1024 * 1024;
  }

  /** Whether the file is kept open for the next read. */
  get keepsFileOpen(): boolean {
    return this.kept !== null;
  }

  /**
   * After a read through the kept descriptor (`stampLater`): the file as that read left it. Its size
   * is where the read stopped, so an append since makes the path's stamp differ (the reconcile pass
   * reads on); a file unlinked since (deleted, or replaced by a rename over it) is let go, and the
   * null stamp has the next pass read the path.
   */
  stampNow(): FileStamp | null {
    if (this.kept === null) return null;
    let stats: fsSync.Stats | null = null;
    try {
      stats = fsSync.fstatSync(this.kept);
    } catch {
      // Not expected of an open descriptor; the path is read again either way.
    }
    if (stats === null || stats.nlink === 0) {
      this.release();
      return null;
    }
    this.lastStat = { mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs };
    return { size: this.position, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
  }

  /** Closes the file kept open between reads, if any: the next read opens the path again. */
  release(): void {
    if (this.kept === null) return;
    const fd = this.kept;
    this.kept = null;
    fsSync.closeSync(fd);
  }

  /** Bytes consumed so far (the offset the next read starts at). */
  get offset(): number {
    return this.position;
  }

  /** Running totals, for the benchmark: appended bytes read, and bytes read only to check identity. */
  get counters(): { readonly bytesRead: number; readonly checkBytesRead: number } {
    return { ...this.totals };
  }

  /**
   * Reads to the end of the file, handing each complete new line to `sink`, in order. Not
   * reentrant: await one read before the next (SessionReader queues them). `sameFile`: the caller
   * knows the path names the file it kept open (an event said only its content changed), which is
   * then read without a stat before it; otherwise that file is closed and the path opened again.
   */
  async read(sink: LineSink, options: ReadOptions = {}): Promise<LineReadResult> {
    if (options.sameFile !== true) this.release();
    const quick = this.readAppendSync(sink);
    if (quick) return quick;
    let stat;
    try {
      stat = await fs.lstat(this.file, { bigint: false });
    } catch (error) {
      if (isMissing(error)) return { reset: null, missing: true, bytesRead: 0, checkBytesRead: 0, linesRead: 0, stamp: null };
      throw error;
    }
    refuseUnlessRegular(this.file, stat);
    // Nothing changed since the last read: no open, no read (the reconcile pass over thousands of files).
    if (
      this.identity &&
      this.lastStat &&
      stat.ino === this.identity.ino &&
      stat.dev === this.identity.dev &&
      stat.size === this.position &&
      stat.mtimeMs === this.lastStat.mtimeMs &&
      stat.ctimeMs === this.lastStat.ctimeMs
    ) {
      return { reset: null, missing: false, bytesRead: 0, checkBytesRead: 0, linesRead: 0, stamp: stampOfStats(stat) };
    }

    let handle;
    try {
      handle = await fs.open(this.file, READ_FLAGS);
    } catch (error) {
      if (isMissing(error)) return { reset: null, missing: true, bytesRead: 0, checkBytesRead: 0, linesRead: 0, stamp: null };
      // Swapped for a symlink between the lstat and the open.
      if (isNoFollowRefusal(error)) throw new NotRegularFileError(this.file, 'a symbolic link');
      throw error;
    }
    try {
      const opened = await handle.stat();
      refuseUnlessRegular(this.file, opened);
      let reset: ResetReason | null = null;
      let checkBytesRead = 0;
      if (this.identity && (opened.ino !== this.identity.ino || opened.dev !== this.identity.dev)) reset = 'replaced';
      else if (this.identity && opened.size < this.position) reset = 'truncated';
      else if (this.identity && this.position > 0) {
        const check = await this.stillSameContent(handle);
        checkBytesRead = check.bytes;
        if (!check.same) reset = 'rewritten';
      }
      if (reset || !this.identity) this.restart(opened.dev, opened.ino);
      if (reset) sink.reset?.(reset);

      let bytesRead = 0;
      let linesRead = 0;
      // Sized to what is there to read (an append is usually a few hundred bytes; small buffers come
      // from Node's shared pool): a fresh 64 KiB per read cost the startup of thousands of sessions
      // tens of MB of resident memory that was not given back.
      const buffer = Buffer.allocUnsafe(Math.max(1024, Math.min(this.chunkSize, opened.size - this.position + 1024)));
      const end = opened.size;
      while (this.position < end) {
        const { bytesRead: n } = await handle.read(buffer, 0, Math.min(buffer.length, end - this.position), this.position);
        if (n === 0) break;
        linesRead += this.takeChunk(buffer.subarray(0, n), sink);
        bytesRead += n;
      }
      return this.finishRead(await handle.stat(), {
        reset,
        missing: false,
        bytesRead,
        checkBytesRead,
        linesRead,
        stamp: stampOfStats(opened),
      });
    } finally {
      await handle.close();
    }
  }

  /** Consumes freshly read bytes and moves the offset past them; the same for both read paths. */
  private takeChunk(chunk: Buffer, sink: LineSink): number {
    const lines = this.consume(chunk, sink);
    this.rememberBoundary(chunk);
    this.position += chunk.length;
    return lines;
  }

  /** Remembers the stat the next read compares with, and adds the read to the running totals. */
  private finishRead(after: { mtimeMs: number; ctimeMs: number }, result: LineReadResult): LineReadResult {
    this.lastStat = { mtimeMs: after.mtimeMs, ctimeMs: after.ctimeMs };
    return this.counted(result);
  }

  /** Adds the read to the running totals. */
  private counted(result: LineReadResult): LineReadResult {
    this.totals.bytesRead += result.bytesRead;
    this.totals.checkBytesRead += result.checkBytesRead;
    return result;
  }

  /** The head as we saw it (one read of the open file). */
  private headUnchanged(fd: number): boolean {
    const head = Buffer.allocUnsafe(this.head.length);
    return fsSync.readSync(fd, head, 0, head.length, 0) === head.length && head.equals(this.head);
  }

  /** `buffer` holds `read` bytes from our offset less the boundary's length: do they start with the boundary as we saw it? */
  private boundaryUnchanged(buffer: Buffer, read: number): boolean {
    return read >= this.boundary.length && buffer.subarray(0, this.boundary.length).equals(this.boundary);
  }

  /**
   * The common case — the same file, grown by a small append since the last read — read with
   * synchronous calls: a few syscalls of microseconds each, where every async one waits for a turn
   * of the thread pool (that wait was most of the append → overflow-event latency). Anything else
   * (first read, a big backlog, another inode, a rewrite) returns null for the async path, which
   * checks it all again. In a process woken from idle each syscall of a new kind costs 20–50 µs of
   * the append → event latency (bench g): a file kept open is read with two (readKept), one opened
   * here with five (open, fstat, the head, the boundary and the appended bytes in one read, and it is
   * then kept), and the stat taken first is the one remembered (a change after it only makes the
   * next read look again).
   */
  private readAppendSync(sink: LineSink): LineReadResult | null {
    if (!this.identity || !this.lastStat || this.position === 0) return null;
    let fd = this.kept;
    if (fd === null) {
      try {
        fd = fsSync.openSync(this.file, READ_FLAGS);
      } catch {
        return null;
      }
    }
    let keep = false;
    try {
      if (fd === this.kept) {
        const quick = this.readKept(fd, sink);
        if (quick) {
          keep = true;
          return quick;
        }
      }
      const opened = fsSync.fstatSync(fd);
      // No links left: deleted, or replaced by a rename over it. The path names another file, or none.
      if (!opened.isFile() || opened.nlink === 0) return null;
      if (opened.ino !== this.identity.ino || opened.dev !== this.identity.dev || opened.size < this.position) return null;
      if (opened.size - this.position > SYNC_READ_LIMIT) return null;
      if (opened.size === this.position && opened.mtimeMs === this.lastStat.mtimeMs && opened.ctimeMs === this.lastStat.ctimeMs) {
        keep = true;
        return { reset: null, missing: false, bytesRead: 0, checkBytesRead: 0, linesRead: 0, stamp: stampOfStats(opened) };
      }
      // The head and the bytes before our offset as we saw them, or the async path starts over.
      if (!this.headUnchanged(fd)) return null;
      const boundaryLength = this.boundary.length;
      const end = opened.size;
      const buffer = Buffer.allocUnsafe(boundaryLength + Math.max(1024, end - this.position));
      const first = fsSync.readSync(fd, buffer, 0, boundaryLength + (end - this.position), this.position - boundaryLength);
      if (!this.boundaryUnchanged(buffer, first)) return null;
      const checkBytesRead = this.head.length + boundaryLength;
      let bytesRead = 0;
      let linesRead = 0;
      let chunk = buffer.subarray(boundaryLength, first);
      for (;;) {
        if (chunk.length === 0) break;
        linesRead += this.takeChunk(chunk, sink);
        bytesRead += chunk.length;
        if (this.position >= end) break;
        const n = fsSync.readSync(fd, buffer, 0, Math.min(buffer.length, end - this.position), this.position);
        chunk = buffer.subarray(0, n);
      }
      keep = true;
      return this.finishRead(opened, { reset: null, missing: false, bytesRead, checkBytesRead, linesRead, stamp: stampOfStats(opened) });
    } finally {
      // Anything but a plain append: the async path opens the path itself and checks it all again.
      this.kept = keep ? fd : null;
      if (!keep) fsSync.closeSync(fd);
    }
  }

  /**
   * An append to the file kept open, with no stat before it: the bytes before our offset and what
   * follows them in one read, then the head (a second read costs a fraction of the first). null when
   * it is anything else — shorter, rewritten, or more than one read holds — and the caller goes on
   * with a stat, which decides it.
   */
  private readKept(fd: number, sink: LineSink): LineReadResult | null {
    const boundaryLength = this.boundary.length;
    keptReadBuffer ??= Buffer.allocUnsafeSlow(BOUNDARY_BYTES + KEPT_READ_BYTES);
    const buffer = keptReadBuffer;
    const wanted = boundaryLength + KEPT_READ_BYTES;
    const first = fsSync.readSync(fd, buffer, 0, wanted, this.position - boundaryLength);
    if (first === wanted || !this.boundaryUnchanged(buffer, first) || !this.headUnchanged(fd)) return null;
    const chunk = buffer.subarray(boundaryLength, first);
    const linesRead = chunk.length > 0 ? this.takeChunk(chunk, sink) : 0;
    const checkBytesRead = this.head.length + boundaryLength;
    return this.counted({ reset: null, missing: false, bytesRead: chunk.length, checkBytesRead, linesRead, stamp: null, stampLater: true });
  }

  private restart(dev: number, ino: number): void {
    this.identity = { dev, ino };
    this.position = 0;
    this.pending = [];
    this.pendingBytes = 0;
    this.dropping = null;
    this.lineNumber = 0;
    this.head = Buffer.alloc(0);
    this.boundary = Buffer.alloc(0);
    this.lastStat = null;
  }

  /** Splits a chunk at newlines; returns how many complete lines went to the sink. */
  private consume(chunk: Buffer, sink: LineSink): number {
    if (this.head.length < HEAD_BYTES) {
      const take = chunk.subarray(0, HEAD_BYTES - this.head.length);
      this.head = ownCopy(Buffer.concat([this.head, take]));
    }
    let lines = 0;
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline < 0) break;
      const piece = chunk.subarray(start, newline);
      const lineOffset = this.position + start - this.pendingBytes;
      this.lineNumber += 1;
      if (this.dropping) {
        sink.oversized?.({ lineNumber: this.lineNumber, offset: this.dropping.offset, bytes: this.dropping.bytes + piece.length });
        this.dropping = null;
      } else {
        const bytes = this.pendingBytes === 0 ? piece : Buffer.concat([...this.pending, piece]);
        if (bytes.length > this.maxLineBytes) sink.oversized?.({ lineNumber: this.lineNumber, offset: lineOffset, bytes: bytes.length });
        else sink.line({ text: bytes.toString('utf8'), lineNumber: this.lineNumber, offset: lineOffset });
        lines += 1;
      }
      this.pending = [];
      this.pendingBytes = 0;
      start = newline + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.length > 0) {
      if (this.dropping) this.dropping.bytes += rest.length;
      else if (this.pendingBytes + rest.length > this.maxLineBytes) {
        this.dropping = { offset: this.position + start - this.pendingBytes, bytes: this.pendingBytes + rest.length };
        this.pending = [];
        this.pendingBytes = 0;
      } else {
        this.pending.push(ownCopy(rest)); // copy: the read buffer is reused
        this.pendingBytes += rest.length;
      }
    }
    return lines;
  }

  /** Keeps the last bytes before the new position, taken from what was just read (no extra read). */
  private rememberBoundary(chunk: Buffer): void {
    if (chunk.length >= BOUNDARY_BYTES && this.boundary.length === BOUNDARY_BYTES) {
      // Copied over the bytes kept before: no allocation per append.
      chunk.copy(this.boundary, 0, chunk.length - BOUNDARY_BYTES);
      return;
    }
    this.boundary =
      chunk.length >= BOUNDARY_BYTES
        ? ownCopy(chunk.subarray(chunk.length - BOUNDARY_BYTES))
        : ownCopy(Buffer.concat([this.boundary, chunk]).subarray(-BOUNDARY_BYTES));
  }

  /** Re-reads the head and the bytes just before our position and compares them with what we saw. */
  private async stillSameContent(handle: fs.FileHandle): Promise<{ same: boolean; bytes: number }> {
    const head = Buffer.alloc(this.head.length);
    const { bytesRead: headRead } = await handle.read(head, 0, head.length, 0);
    const boundary = Buffer.alloc(this.boundary.length);
    const { bytesRead: boundaryRead } = await handle.read(boundary, 0, boundary.length, this.position - this.boundary.length);
    const same = headRead === head.length && head.equals(this.head) && boundaryRead === boundary.length && boundary.equals(this.boundary);
    return { same, bytes: headRead + boundaryRead };
  }
}

/**
 * A copy in memory of its own. Small Buffer.from/concat results are slices of Node's shared 8 KiB
 * pool, and one kept slice keeps its whole slab alive: a head and a boundary kept per session
 * pinned ~30 MB of slabs at 10,000 sessions (measured: external memory 30 MB).
 */
function ownCopy(bytes: Uint8Array): Buffer<ArrayBuffer> {
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  copy.set(bytes);
  return copy;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
