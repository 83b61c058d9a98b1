// Real session files, fast. One session is written the way the agent writes it — through
// ConversationContext (header, a definition message, a turn, a usage line) — and its lines become
// the template: big sessions repeat its turn in large chunks, many sessions copy it under new ids.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { projectPaths } from '../dist/paths.js';
import { ConversationContext } from '../dist/session/conversation-context.js';
import { HeaderLine, MessageLine, UsageLine } from '../dist/session/format.js';

export interface SessionTemplate {
  readonly maxContextTokens: number;
  /** The header line parsed, to copy under a new id. */
  readonly header: HeaderLine;
  /** Everything after the header, as ConversationContext wrote it. */
  readonly body: string;
  /** One turn (user message, assistant message, usage line), to repeat. */
  readonly turn: string;
}

const USER_TEXT =
  'Please refactor the session reader so that it only reads appended bytes, and add a differential test against a full re-parse. ';
const ASSISTANT_TEXT =
  'I changed src/daemon/watching/incremental-reader.ts to remember its byte offset and a fingerprint of the head; the test now compares both readers line by line. ';

/** Writes one real session in `root` (then closes it: nobody owns it) and returns it as a template. */
export async function writeTemplateSession(
  root: string,
  options: { maxContextTokens: number; env?: NodeJS.ProcessEnv },
): Promise<{ file: string; template: SessionTemplate }> {
  const context = await ConversationContext.create({
    paths: projectPaths(root),
    model: 'bench-model',
    maxContextTokens: options.maxContextTokens,
    ...(options.env ? { env: options.env } : {}),
  });
  const file = context.sessionFile;
  try {
    await context.appendMessage({ role: 'system', content: 'You are a careful coding agent.' }, { definition: true });
    await context.appendMessage({ role: 'user', content: USER_TEXT.repeat(3) });
    await context.appendMessage({ role: 'assistant', content: ASSISTANT_TEXT.repeat(4) });
    await context.appendUsage(usage(Math.floor(options.maxContextTokens / 2)));
  } finally {
    await context.close();
  }
  const text = await fs.readFile(file, 'utf8');
  const lines = text.split('\n').filter((line) => line.length > 0);
  const header = HeaderLine.parse(JSON.parse(lines[0] ?? ''));
  return {
    file,
    template: {
      maxContextTokens: options.maxContextTokens,
      header,
      body: lines
        .slice(1)
        .map((line) => `${line}\n`)
        .join(''),
      turn: lines
        .slice(2)
        .map((line) => `${line}\n`)
        .join(''),
    },
  };
}

/** A copy of the template session under a fresh id in `sessionsFolder`; returns its path. */
export async function copySession(
  sessionsFolder: string,
  template: SessionTemplate,
  options: { lastWritten?: Date } = {},
): Promise<string> {
  const id = randomUUID();
  const created = options.lastWritten ?? new Date();
  const header = HeaderLine.parse({ ...template.header, id, createdAt: created.toISOString() });
  const file = path.join(sessionsFolder, `${id}.jsonl`);
  await fs.writeFile(file, `${JSON.stringify(header)}\n${template.body}`, { flag: 'wx' });
  // A session last written long ago, as most of the thousands in a real repo are.
  if (options.lastWritten) await fs.utimes(file, options.lastWritten, options.lastWritten);
  return file;
}

/** Grows `file` to at least `bytes` by appending the template's turn in chunks of ~8 MiB. */
export async function growSession(file: string, template: SessionTemplate, bytes: number): Promise<number> {
  const turnsPerChunk = Math.max(1, Math.floor((8 * 1024 * 1024) / Buffer.byteLength(template.turn)));
  const chunk = Buffer.from(template.turn.repeat(turnsPerChunk));
  const handle = await fs.open(file, 'a');
  try {
    let size = (await handle.stat()).size;
    while (size < bytes) {
      const piece = size + chunk.length <= bytes ? chunk : chunk.subarray(0, roundUpToTurn(bytes - size, template));
      await handle.write(piece);
      size += piece.length;
    }
    return size;
  } finally {
    await handle.close();
  }
}

function roundUpToTurn(bytes: number, template: SessionTemplate): number {
  const turn = Buffer.byteLength(template.turn);
  return Math.ceil(bytes / turn) * turn;
}

export function usage(promptTokens: number): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  return { prompt_tokens: promptTokens, completion_tokens: 200, total_tokens: promptTokens + 200 };
}

/** A usage line as the agent records it after a model response. */
export function usageLine(promptTokens: number): string {
  return `${JSON.stringify(UsageLine.parse({ type: 'usage', usage: usage(promptTokens) }))}\n`;
}

/** An assistant message line, as recorded. */
export function assistantLine(text: string): string {
  return `${JSON.stringify(MessageLine.parse({ type: 'message', message: { role: 'assistant', content: text } }))}\n`;
}
