// A Gemini CLI session's conversation as the client itself rebuilds it (a message written again under
// its id replaces the first in its place, `$set.messages` replaces them all, `$rewindTo` drops from an
// id on), kept as the places of the lines that hold each message, never their content: which
// messages are left is known only at the file's end, and they are then read again by place.
import { detached } from '../kit/evidence.js';
import { asRecord, type JsonRecord, parseRecord } from '../kit/json-record.js';
import type { LinePlace } from '../kit/transcript-lines.js';

/** Where one message is: its line, and its index in that line's `$set.messages` (-1: the line is the message). */
export interface MessagePlace extends LinePlace {
  readonly id: string;
  readonly index: number;
}

export class GeminiConversation {
  private readonly messages = new Map<string, MessagePlace>();

  line(text: string, place: LinePlace): void {
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
        if (message && typeof message.id === 'string') this.keep(message.id, { offset: place.offset, bytes: place.bytes }, index);
      }
    } else if (typeof line.id === 'string' && typeof line.type === 'string') {
      this.keep(line.id, place, -1);
    }
  }

  /** The messages' places in the order the client would resume them. */
  places(): MessagePlace[] {
    return [...this.messages.values()];
  }

  private keep(id: string, place: LinePlace, index: number): void {
    // A parsed string is a view of its whole line in V8: the id is copied off it, so the line can go.
    const key = this.messages.get(id)?.id ?? detached(id);
    this.messages.set(key, { id: key, offset: place.offset, bytes: place.bytes, index });
  }
}

/** One read per line: the messages of one `$set` line, in a row, read it once. */
export function linesOfPlaces(places: readonly MessagePlace[]): { readonly place: LinePlace; readonly messages: MessagePlace[] }[] {
  const lines: { place: LinePlace; messages: MessagePlace[] }[] = [];
  for (const place of places) {
    const last = lines.at(-1);
    if (last && place.index >= 0 && last.place.offset === place.offset && last.messages[0]!.index >= 0) last.messages.push(place);
    else lines.push({ place, messages: [place] });
  }
  return lines;
}

/** The messages a line holds at their places; one whose id is not what the first pass saw there (the file was rewritten since) is left out. */
export function messagesOfLine(text: string, messages: readonly MessagePlace[]): JsonRecord[] {
  const line = parseRecord(text);
  if (!line) return [];
  const patched = asRecord(line.$set)?.messages;
  const found: JsonRecord[] = [];
  for (const place of messages) {
    const message = place.index < 0 ? line : Array.isArray(patched) ? asRecord(patched[place.index]) : null;
    if (message && message.id === place.id) found.push(message);
  }
  return found;
}
