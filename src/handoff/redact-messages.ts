// Secrets are redacted in a transcript's own texts before a document is built from
// them. The offline document folds a command onto one line (` ⏎ `) and cuts a long request short,
// and a scanner run only over the result sees a private key's BEGIN line without its body, or half
// a token; over the raw texts it sees each secret whole, as it was typed or run. The document is
// still scanned when it is sealed: this is the first of two scans, not the only one.
import type { AgentMessage } from '../session/session-recorder.js';
import type { ChatMessage } from '../session/format.js';
import { redactFindings, scanForSecrets, type SecretFinding, type SecretScanner } from './secret-scan.js';

// Between two texts in the one scan: a line of its own no rule reads as part of a secret.
const SEPARATOR = '\n\u0000\n';

interface Slot {
  readonly text: string;
  /** Where the redacted text goes back. */
  readonly put: (redacted: string) => void;
}

/**
 * The messages with every secret in what the user and the agent wrote, and in each tool call's
 * arguments, replaced by `[redacted: <rule>]`. Tool results and definitions are left as they are:
 * a document quotes neither. One scan over all the texts (a scan has a fixed cost), its findings
 * cut back to the text each falls in. Throws when the scanner cannot run.
 */
export async function redactMessages(messages: readonly AgentMessage[], scan: SecretScanner = scanForSecrets): Promise<AgentMessage[]> {
  const slots: Slot[] = [];
  const finishers: (() => void)[] = [];
  const copies = messages.map((entry) => {
    if (entry.definition || (entry.message.role !== 'user' && entry.message.role !== 'assistant')) return entry;
    const message: ChatMessage = { ...entry.message };
    collectContent(message, slots);
    if (message.tool_calls) {
      message.tool_calls = message.tool_calls.map((call) => {
        const copy = { ...call, function: { ...call.function } };
        collectArguments(copy.function, slots, finishers);
        return copy;
      });
    }
    return { ...entry, message };
  });
  if (slots.length === 0) return copies;
  const starts: number[] = [];
  let joined = '';
  for (const slot of slots) {
    if (joined.length > 0) joined += SEPARATOR;
    starts.push(joined.length);
    joined += slot.text;
  }
  const findings = await scan(joined);
  if (findings.length === 0) return [...messages];
  slots.forEach((slot, index) => {
    const start = starts[index]!;
    const end = start + slot.text.length;
    const own: SecretFinding[] = findings
      .filter((finding) => finding.start < end && finding.end > start)
      .map((finding) => ({ rule: finding.rule, start: Math.max(finding.start, start) - start, end: Math.min(finding.end, end) - start }));
    if (own.length > 0) slot.put(redactFindings(slot.text, own).text);
  });
  for (const finish of finishers) finish();
  return copies;
}

function collectContent(message: ChatMessage, slots: Slot[]): void {
  const content = message.content;
  if (typeof content === 'string') {
    slots.push({ text: content, put: (text) => (message.content = text) });
    return;
  }
  if (!Array.isArray(content)) return;
  const parts = [...content];
  message.content = parts;
  parts.forEach((part, index) => {
    if (typeof part === 'string') slots.push({ text: part, put: (text) => (parts[index] = text) });
    else if (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string') {
      slots.push({ text: (part as { text: string }).text, put: (text) => (parts[index] = { ...(part as object), text }) });
    }
  });
}

/**
 * A tool call's arguments are JSON: each string in them is scanned as the tool got it (a command's
 * line breaks and quotes as they were run, not as `\n` and `\"`), then the JSON is written again.
 * Arguments that are not JSON are scanned as they are.
 */
function collectArguments(target: { arguments: string }, slots: Slot[], finishers: (() => void)[]): void {
  let root: unknown;
  try {
    root = JSON.parse(target.arguments);
  } catch {
    slots.push({ text: target.arguments, put: (text) => (target.arguments = text) });
    return;
  }
  let changed = false;
  const visit = (value: unknown, put: (next: unknown) => void): void => {
    if (typeof value === 'string') {
      slots.push({
        text: value,
        put: (text) => {
          changed = true;
          put(text);
        },
      });
    } else if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) visit(item, (next) => (value[index] = next));
    } else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) visit(record[key], (next) => (record[key] = next));
    }
  };
  visit(root, (next) => (root = next));
  // Written again only when one of its strings was redacted: otherwise its bytes stay as they were.
  finishers.push(() => {
    if (changed) target.arguments = JSON.stringify(root);
  });
}
