// The messages of a Cline conversation (`<id>.messages.json`), one at a time, streamed. Cline writes the
// document as `JSON.stringify(…, null, 2)`, where a string never spans lines: a message of the top-level
// `"messages"` array is the lines from `    {` to `    }` (the rule cline-fold.ts reads replies by), and
// it alone is parsed. A document written on one line (not Cline's way) is parsed whole, up to a line's bound.
import { asRecord, type JsonRecord, parseRecord } from '../kit/json-record.js';
import { type LineOptions, MAX_LINE_BYTES, transcriptLines } from '../kit/transcript-lines.js';

const MESSAGES_START = /^ {2}"messages": \[$/;
const MESSAGES_END = /^ {2}\],?$/;
const MESSAGE_START = /^ {4}\{$/;
const MESSAGE_END = /^ {4}\},?$/;
/** A message longer than this is left out, unread: one message is bounded as one line is. */
const MAX_MESSAGE_CHARACTERS = MAX_LINE_BYTES;

export async function* clineMessages(file: string, options: LineOptions = {}): AsyncGenerator<JsonRecord> {
  let inMessages = false;
  let message: string[] | null = null;
  let size = 0;
  let first = true;
  for await (const line of transcriptLines(file, options)) {
    if (first && line.startsWith('{') && line.length > 1) {
      // The whole document on its first line.
      const document = parseRecord(line);
      for (const entry of Array.isArray(document?.messages) ? document.messages : []) {
        const parsed = asRecord(entry);
        if (parsed) yield parsed;
      }
      return;
    }
    first = false;
    if (!inMessages) {
      inMessages = MESSAGES_START.test(line);
      continue;
    }
    if (message === null) {
      if (MESSAGE_START.test(line)) {
        message = ['{'];
        size = 1;
      } else if (MESSAGES_END.test(line)) inMessages = false;
      continue;
    }
    if (MESSAGE_END.test(line)) {
      message.push('}');
      const parsed = size <= MAX_MESSAGE_CHARACTERS ? parseRecord(message.join('\n')) : null;
      message = null;
      if (parsed) yield parsed;
      continue;
    }
    size += line.length + 1;
    // Past the bound its lines are counted, not kept: the message is left out once it ends.
    if (size <= MAX_MESSAGE_CHARACTERS) message.push(line);
  }
}
