// A Gemini CLI session's conversation as the client itself rebuilds it (a message written again under
// its id replaces the first in its place, `$set.messages` replaces them all, `$rewindTo` drops from an
// id on), kept as the places of the lines that hold each message, never their content: which
// messages are left is known only at the file's end, and they are then read again by place.
import { detached } from '../kit/evidence.js';
import { asRecord, type JsonRecord, parseRecord } from '../kit/json-record.js';
import type { LinePlace } from '../kit/transcript-lines.js';

/** Where one message is: its line, and its index in that line's `$set.messages` (-1: the line is the message). */
interface MessagePlace extends LinePlace {
  readonly id: string;
  readonly index: number;
}

/** A message as the client writes it (`newMessage`: id, timestamp, type first), read without parsing its line. */
const MESSAGE_HEAD = /^\{"id":"([^"\\]*)","timestamp":"[^"\\]*","type":"[^"\\]*",/;

export class GeminiConversation {
  private readonly messages = new Map<string, MessagePlace>();

  line(text: string, place: LinePlace): void {
    // Most lines are messages: their content is read on the second pass only (a torn last line does not end in `}`: it is parsed, and left out).
    const head = text.endsWith('}') ? MESSAGE_HEAD.exec(text) : null;
    if (head) {
      this.keep(head[1]!, place, -1);
      return;
    }
    const line = parseRecord(text); // null: a torn last line
    if (!line) return;
    const patch = asRecord(line.$set);
    if (typeof line.$rewindTo === 'string') {
      const ids = [...this.messages.keys()];
      const from = ids.indexOf(line.$rewindTo);
      for (const id of from === -1 ? ids : ids.slice(from)) this.messages.delete(id);
    } else if (patch && Array.isArray(patch.messages)) {
      this.messages.clear();
      for (const [index, entry] of (patch.messages as unknown[]).entries()) {
        const message = asRecord(entry);
        if (message && typeof message.id === 'string') this.keep(message.id, place, index);
      }
    } else if (typeof line.id === 'string' && typeof line.type === 'string') {
      this.keep(line.id, place, -1);
    }
  }

  /** The messages' places in the order the client would resume them, as arrays of numbers (the map can go before they are read). */
  places(): MessagePlaces {
    const places = new MessagePlaces(this.messages.size);
    for (const place of this.messages.values()) places.push(place);
    return places;
  }

  private keep(id: string, place: LinePlace, index: number): void {
    // A parsed string is a view of its whole line in V8: the id is copied off it, so the line can go.
    const key = this.messages.get(id)?.id ?? detached(id);
    this.messages.set(key, { id: key, offset: place.offset, bytes: place.bytes, index });
  }
}

/** The places of a conversation's messages, in order. */
export class MessagePlaces {
  /** Each message's id as a hash: what the second pass checks it finds at the place (the ids themselves need not stay). */
  private readonly ids: Int32Array;
  private count = 0;
  private readonly offsets: Float64Array;
  private readonly lengths: Int32Array;
  private readonly indexes: Int32Array;

  constructor(size: number) {
    this.ids = new Int32Array(size);
    this.offsets = new Float64Array(size);
    this.lengths = new Int32Array(size);
    this.indexes = new Int32Array(size);
  }

  push(place: MessagePlace): void {
    const at = this.count++;
    this.ids[at] = hashOf(place.id);
    this.offsets[at] = place.offset;
    this.lengths[at] = place.bytes;
    this.indexes[at] = place.index;
  }

  /** The lines to read, each once for the messages of it that come in a row (a `$set` line's). */
  *lines(): Generator<LinePlace> {
    for (let at = 0; at < this.count; at = this.nextLine(at)) yield { offset: this.offsets[at]!, bytes: this.lengths[at]! };
  }

  /** Reads the lines of lines() in order: each call takes the next line's text and gives the messages it holds. */
  reader(): (text: string) => JsonRecord[] {
    let at = 0;
    return (text) => {
      const end = this.nextLine(at);
      const line = parseRecord(text);
      const patched = asRecord(line?.$set)?.messages;
      const found: JsonRecord[] = [];
      for (; at < end; at += 1) {
        const index = this.indexes[at]!;
        const message = index < 0 ? line : Array.isArray(patched) ? asRecord(patched[index]) : null;
        // One whose id is not what the first pass saw there (the file was rewritten since) is left out.
        if (message && typeof message.id === 'string' && hashOf(message.id) === this.ids[at]) found.push(message);
      }
      return found;
    };
  }

  private nextLine(at: number): number {
    let next = at + 1;
    if (this.indexes[at]! >= 0) while (next < this.count && this.indexes[next]! >= 0 && this.offsets[next] === this.offsets[at]) next += 1;
    return next;
  }
}

/** FNV-1a over the id's characters. */
function hashOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index += 1) hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193);
  return hash | 0;
}
