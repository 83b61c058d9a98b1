// Splits a byte stream into delimiter-terminated frames with a hard cap. node-ipc's own parser
// cannot be trusted with a stranger's bytes: it buffers without limit until a chunk happens to end
// with the delimiter, and a frame such as '{"data":1}\f' (no string `type`) throws inside its
// event emitter, out of the socket's 'data' handler, and takes the whole process down. So the
// daemon runs node-ipc in rawBuffer mode and frames here.
const DELIMITER_BYTE = 0x0c;

export type Frame = { kind: 'message'; text: string } | { kind: 'too-large'; bytes: number };

export class FrameDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set after an oversized frame: its remaining bytes are dropped up to the next delimiter. */
  private discarding = false;

  constructor(private readonly maxBytes: number) {}

  /** Feeds a chunk; returns the frames it completed, in order. Never throws on any input. */
  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(DELIMITER_BYTE, start);
      if (end < 0) break;
      this.finishFrame(chunk.subarray(start, end), frames);
      start = end + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.length > 0 && !this.discarding) {
      if (this.pendingBytes + rest.length > this.maxBytes) {
        frames.push({ kind: 'too-large', bytes: this.pendingBytes + rest.length });
        this.reset();
        this.discarding = true;
      } else {
        this.pending.push(Buffer.from(rest)); // copy: the socket may reuse its chunk
        this.pendingBytes += rest.length;
      }
    }
    return frames;
  }

  /** Bytes held while waiting for a delimiter (never more than maxBytes). */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  private finishFrame(tail: Buffer, frames: Frame[]): void {
    if (this.discarding) {
      this.discarding = false; // the oversized frame ends here; it was reported already
      return;
    }
    const bytes = this.pendingBytes + tail.length;
    if (bytes > this.maxBytes) frames.push({ kind: 'too-large', bytes });
    else if (bytes > 0) {
      // A frame within one chunk (every event, nearly every request) is decoded where it lies.
      const whole = this.pending.length === 0 ? tail : Buffer.concat([...this.pending, tail]);
      frames.push({ kind: 'message', text: whole.toString('utf8') });
    }
    this.reset();
  }

  private reset(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }
}
