// What every agent's evidence reader shares: a transcript's tool calls under ai-zen's tool names
// (a file tool as write/edit/read with a repo-relative `path`, the shell as `exec` whose result ends
// in `[exit code N]`), the text of content blocks, and bounds on what is kept — a handoff reads the
// whole transcript, and a session that read big files would otherwise hold them all in memory: each
// message is bounded, and only the latest ones are kept whole (the older ones leave their requests
// and a digest of what their tools did).
import path from 'node:path';
import { ActivityDigest } from '../../../handoff/activity-digest.js';
import { isHandoffInstruction, messageText } from '../../../handoff/transcript.js';
import type { ChatMessage } from '../../../session/format.js';
import type { AgentMessage } from '../../../session/session-recorder.js';
import type { EvidenceOptions, TranscriptEvidence } from '../../watching/session-source.js';
import { asRecord } from './json-record.js';
import { foldLines, foldTranscript, type TranscriptCollector } from './transcript-lines.js';

export type ToolCall = NonNullable<ChatMessage['tool_calls']>[number];

/** An agent's tool names: which of its tools change or read one file (and the argument naming it), and its shell. */
export interface ToolNames {
  readonly files: Readonly<Record<string, { readonly tool: 'write' | 'edit' | 'batch_edit' | 'read'; readonly key: string }>>;
  readonly shell: string;
}

/** A kept message's text is at most this long: its head and its tail (where an exit code is), the middle left out. */
export const MESSAGE_TEXT_BYTES = 64 * 1024;

/** The latest messages are kept whole up to this many characters: more than a summary's window takes. */
export const TAIL_CHARACTERS = 1024 * 1024;
/** A request let go of with the older messages keeps this much of its text (its head and its tail). */
export const EARLIER_REQUEST_CHARACTERS = 8 * 1024;
/** The requests let go of are kept up to this many characters: the first and the latest. */
export const EARLIER_REQUESTS_CHARACTERS = 2 * 1024 * 1024;

export function bounded(text: string, limit: number = MESSAGE_TEXT_BYTES): string {
  if (text.length <= limit) return text;
  const half = limit / 2;
  return `${text.slice(0, half)}\n[… ${text.length - limit} characters left out …]\n${text.slice(-half)}`;
}

/** V8 copies a slice shorter than this (SlicedString::kMinLength): only a longer one is a view. */
const SLICED_FROM = 13;

/**
 * A copy of `text` that holds only its own characters. V8 makes a parsed JSON string, and a slice,
 * a view of the whole line it came from: a kept 4 KB head would hold its whole line in memory.
 */
export function detached(text: string): string {
  return text.length < SLICED_FROM ? text : Buffer.from(text, 'utf8').toString('utf8');
}

/** About how much of the tail a message takes: its text and its calls' arguments. */
function sizeOf(message: ChatMessage): number {
  let size = messageText(message).length + 64;
  for (const call of message.tool_calls ?? []) size += call.function.arguments.length + call.function.name.length + 64;
  return size;
}

/** `file` relative to the repo when it is inside it (resolved from `base`, the session's folder), else as written. */
export function repoRelative(root: string, file: string, base: string = root): string {
  const inside = path.relative(root, path.resolve(base, file));
  return inside !== '' && !inside.startsWith('..') && !path.isAbsolute(inside) ? inside : file;
}

/** The text of a content that is a string or a list of blocks with `text` (joined by lines). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => asRecord(part)?.text)
    .filter((text): text is string => typeof text === 'string' && text.length > 0)
    .join('\n');
}

/** One tool call of the agent's under ai-zen's name; `shell` says its result is a command's (an exit code ends it). */
export function toolCallOf(
  id: string,
  name: string,
  args: Record<string, unknown>,
  names: ToolNames,
  relative: (file: string) => string = (file) => file,
): { readonly call: ToolCall; readonly shell: boolean } {
  const call = (tool: string, input: unknown): ToolCall => ({
    id,
    type: 'function',
    function: { name: tool, arguments: JSON.stringify(input) },
  });
  const file = names.files[name];
  const named = file ? args[file.key] : undefined;
  if (file && typeof named === 'string') return { call: call(file.tool, { path: relative(named) }), shell: false };
  if (name === names.shell && typeof args.command === 'string') return { call: call('exec', { command: args.command }), shell: true };
  return { call: call(name, args), shell: false };
}

/** A command's result as ai-zen reads it: its output, then `[exit code N]`; with no code known, an error. */
export function commandResult(output: string, exitCode: string | number | null | undefined): string {
  return exitCode === null || exitCode === undefined || exitCode === '' ? `error: ${output}` : `${output}\n[exit code ${exitCode}]`;
}

/** Where a content block (Anthropic's shape: Claude Code's, pi's) is a tool call: its `type`, and the key of its arguments. */
export interface CallBlocks {
  readonly type: string;
  readonly args: string;
}

/**
 * The messages of a transcript as they are gathered, each bounded; past TAIL_CHARACTERS the oldest
 * are let go of, their tool activity folded into a digest and their requests kept (bounded too).
 */
export class EvidenceMessages {
  private tail: AgentMessage[] = [];
  private tailSize = 0;
  /** The first request let go of, then the latest that fit (from `requestsFrom` on: dropping one is O(1)). */
  private earlierRequests: AgentMessage[] = [];
  private requestsFrom = 1;
  private earlierRequestsSize = 0;
  private earlier: ActivityDigest | null = null;
  private requested = false;
  /** How many messages were pushed in all (a made id's number). */
  count = 0;
  private calls = 0;
  /** The ids of shell calls: their results are a command's. */
  private readonly commands = new Set<string>();

  constructor(
    private readonly prefix: string,
    private readonly options: EvidenceOptions = {},
  ) {}

  /** The user's requests let go of, then the latest messages, in order. */
  get messages(): AgentMessage[] {
    return [...this.earlierRequests.slice(0, 1), ...this.earlierRequests.slice(this.requestsFrom), ...this.tail];
  }

  /** The messages and the digest of those let go of. */
  gathered(): TranscriptEvidence {
    return { messages: this.messages, earlier: this.earlier };
  }

  /** Whether the reading may stop: only the first request was wanted, and it came. */
  done(): boolean {
    return this.options.firstRequestOnly === true && this.requested;
  }

  /** The last message pushed, while it is still kept. */
  last(): AgentMessage | undefined {
    return this.tail.at(-1);
  }

  /** Takes back the last message pushed (one a merge replaces). */
  dropLast(): void {
    const dropped = this.tail.pop();
    if (dropped) this.tailSize -= sizeOf(dropped.message);
  }

  push(message: ChatMessage): void {
    const content = typeof message.content === 'string' ? detached(bounded(message.content)) : message.content;
    const kept = { message: { ...message, content } as ChatMessage };
    this.count += 1;
    if (message.role === 'user' && !isHandoffInstruction(kept.message)) this.requested = true;
    this.tail.push(kept);
    this.tailSize += sizeOf(kept.message);
    if (this.tailSize > TAIL_CHARACTERS) this.letGo();
  }

  /** Lets the oldest half of the tail go: their tool activity into the digest, their requests kept. */
  private letGo(): void {
    let cut = 0;
    let size = 0;
    while (cut < this.tail.length - 1 && this.tailSize - size > TAIL_CHARACTERS / 2) size += sizeOf(this.tail[cut++]!.message);
    // A call's results go with it: the digest pairs them.
    while (cut < this.tail.length - 1 && this.tail[cut]!.message.role === 'tool') size += sizeOf(this.tail[cut++]!.message);
    const gone = this.tail.splice(0, cut);
    this.tailSize -= size;
    (this.earlier ??= new ActivityDigest()).add(gone);
    for (const entry of gone) if (entry.message.role === 'user') this.keepRequest(entry);
  }

  /** The first request is always kept (it may name the document the session started from), then the latest that fit. */
  private keepRequest(entry: AgentMessage): void {
    const text = detached(bounded(messageText(entry.message), EARLIER_REQUEST_CHARACTERS));
    this.earlierRequests.push({ message: { role: 'user', content: text } });
    this.earlierRequestsSize += text.length;
    while (this.earlierRequestsSize > EARLIER_REQUESTS_CHARACTERS && this.earlierRequests.length - this.requestsFrom > 1) {
      this.earlierRequestsSize -= messageText(this.earlierRequests[this.requestsFrom]!.message).length;
      this.requestsFrom += 1;
    }
    // The dropped ones are let go of once they are half the list.
    if (this.requestsFrom > this.earlierRequests.length / 2 && this.requestsFrom > 64) {
      this.earlierRequests = [this.earlierRequests[0]!, ...this.earlierRequests.slice(this.requestsFrom)];
      this.requestsFrom = 1;
    }
  }

  /** Words of the user or the assistant; empty ones are not kept. */
  text(role: 'user' | 'assistant', content: unknown): void {
    if (typeof content === 'string' && content.trim() !== '') this.push({ role, content });
  }

  /** One call of the agent's under ai-zen's name (toolCallOf); a shell call is remembered, its result ends in an exit code. */
  toolCall(id: string, name: string, args: Record<string, unknown>, names: ToolNames, relative?: (file: string) => string): ToolCall {
    const { call, shell } = toolCallOf(id, name, args, names, relative);
    if (shell) this.commands.add(id);
    return call;
  }

  /** A tool's result: a shell call's ends in its exit code (`exitCode`; none known: an error), another's that failed is an error. */
  result(id: string, text: string, failed: boolean, exitCode: string | number | null | undefined): void {
    this.push({
      role: 'tool',
      tool_call_id: id,
      content: this.commands.delete(id) ? commandResult(text, exitCode) : failed ? `error: ${text}` : text,
    });
  }

  /** An assistant's content blocks as one message: its text blocks and its tool calls (`calls`); null when it has neither. */
  blocks(content: unknown, calls: CallBlocks, names: ToolNames, relative?: (file: string) => string): ChatMessage | null {
    if (!Array.isArray(content)) return null;
    const texts: string[] = [];
    const toolCalls: ToolCall[] = [];
    for (const block of content.map(asRecord)) {
      if (block?.type === 'text' && typeof block.text === 'string') texts.push(block.text);
      if (block?.type === calls.type && typeof block.id === 'string' && typeof block.name === 'string')
        toolCalls.push(this.toolCall(block.id, block.name, asRecord(block[calls.args]) ?? {}, names, relative));
    }
    if (texts.length === 0 && toolCalls.length === 0) return null;
    return { role: 'assistant', content: texts.join('\n'), ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
  }

  /** A call the transcript records with its outcome only (Codex, Copilot): one assistant call and its result, under a made id. */
  call(name: string, args: Record<string, unknown>, result: string): void {
    const id = `${this.prefix}_call_${++this.calls}`;
    this.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });
    this.push({ role: 'tool', tool_call_id: id, content: result });
  }
}

/**
 * An agent's evidence reader from its collector (which makes its EvidenceMessages with the options
 * it is given): of a file, streamed and bounded; or of lines already in memory (a test's, a bench's).
 */
export function evidenceReader<A extends unknown[]>(
  collector: (options: EvidenceOptions, ...args: A) => TranscriptCollector<TranscriptEvidence>,
) {
  return {
    file: (file: string, options: EvidenceOptions = {}, ...args: A): Promise<TranscriptEvidence> =>
      foldTranscript(file, collector(options, ...args), options),
    lines: (lines: readonly string[], ...args: A): readonly AgentMessage[] => foldLines(lines, collector({}, ...args)).messages,
  };
}
