// The branch a pi session is on, found from its entries' ids and parents alone: pi keeps a tree (each
// entry names its parent, the last one written is the leaf), so the branch is known only once the
// file has been read to its end. Each entry costs its id and three numbers here, never its content;
// the branch is then read again by its lines' places (lines-at.ts).
import path from 'node:path';
import { detached } from '../kit/evidence.js';
import { parseRecord } from '../kit/json-record.js';
import type { LinePlace } from '../kit/transcript-lines.js';

/** pi writes `{"type":…,"id":…,"parentId":…,` first (session-manager's entry literals): read without parsing the line. */
const ENTRY_HEAD = /^\{"type":"([^"\\]*)","id":"([^"\\]*)","parentId":(?:null|"([^"\\]*)")[,}]/;
const NO_PARENT = -1;

export class PiBranch {
  /** The session's folder, from its header: where a relative path of a tool call starts. */
  cwd: string;
  private readonly indexOf = new Map<string, number>();
  private parents = new Int32Array(1024);
  private offsets = new Float64Array(1024);
  private lengths = new Int32Array(1024);
  /** Parents named before they were seen (no client writes this; a hand-made file might): resolved at the end. */
  private readonly unresolved = new Map<number, string>();
  private count = 0;

  constructor(root: string) {
    this.cwd = root;
  }

  line(text: string, place: LinePlace): void {
    const head = ENTRY_HEAD.exec(text);
    if (head) {
      if (head[1] !== 'session') this.add(head[2]!, head[3] ?? null, place);
      return;
    }
    const line = parseRecord(text); // null: a torn last line
    if (!line) return;
    if (line.type === 'session') {
      if (typeof line.cwd === 'string' && path.isAbsolute(line.cwd)) this.cwd = line.cwd;
      return;
    }
    if (typeof line.id === 'string') this.add(line.id, typeof line.parentId === 'string' ? line.parentId : null, place);
  }

  /**
   * The places of the branch's entries, root first: the file's order, as ancestors are written before
   * descendants. Held as two arrays of numbers, so the entries' map can go before the branch is read.
   */
  branch(): Iterable<LinePlace> {
    const seen = new Uint8Array(this.count);
    const entries: number[] = [];
    for (let entry = this.count - 1; entry !== NO_PARENT && seen[entry] === 0; entry = this.parentOf(entry)) {
      seen[entry] = 1;
      entries.push(entry);
    }
    const offsets = new Float64Array(entries.length);
    const lengths = new Int32Array(entries.length);
    for (const [index, entry] of entries.reverse().entries()) {
      offsets[index] = this.offsets[entry]!;
      lengths[index] = this.lengths[entry]!;
    }
    return {
      *[Symbol.iterator]() {
        for (let index = 0; index < offsets.length; index += 1) yield { offset: offsets[index]!, bytes: lengths[index]! };
      },
    };
  }

  private parentOf(entry: number): number {
    const named = this.unresolved.get(entry);
    return named === undefined ? this.parents[entry]! : (this.indexOf.get(named) ?? NO_PARENT);
  }

  private add(id: string, parentId: string | null, place: LinePlace): void {
    if (this.count === this.parents.length) this.grow();
    const entry = this.count++;
    const parent = parentId === null ? NO_PARENT : this.indexOf.get(parentId);
    if (parent === undefined) this.unresolved.set(entry, detached(parentId!));
    this.parents[entry] = parent ?? NO_PARENT;
    this.offsets[entry] = place.offset;
    this.lengths[entry] = place.bytes;
    // An id written again names its latest entry, as a map of the entries by id would.
    // A matched or parsed id is a view of its whole line in V8: copied off it, so the line can go.
    this.indexOf.set(detached(id), entry);
  }

  private grow(): void {
    const size = this.parents.length * 2;
    const parents = new Int32Array(size);
    parents.set(this.parents);
    this.parents = parents;
    const offsets = new Float64Array(size);
    offsets.set(this.offsets);
    this.offsets = offsets;
    const lengths = new Int32Array(size);
    lengths.set(this.lengths);
    this.lengths = lengths;
  }
}
