// What every agent's evidence reader shares: a transcript's tool calls under ai-zen's tool names
// (a file tool as write/edit/read with a repo-relative `path`, the shell as `exec` whose result ends
// in `[exit code N]`), the text of content blocks, and a bound on each kept message — a handoff reads
// the whole transcript, and a session that read big files would otherwise hold them all in memory.
import path from 'node:path';
import type { ChatMessage } from '../../../session/format.js';
import type { AgentMessage } from '../../../session/session-recorder.js';
import { asRecord } from './json-record.js';

export type ToolCall = NonNullable<ChatMessage['tool_calls']>[number];

/** An agent's tool names: which of its tools change or read one file (and the argument naming it), and its shell. */
export interface ToolNames {
  readonly files: Readonly<Record<string, { readonly tool: 'write' | 'edit' | 'batch_edit' | 'read'; readonly key: string }>>;
  readonly shell: string;
}

/** A kept message's text is at most this long: its head and its tail (where an exit code is), the middle left out. */
export const MESSAGE_TEXT_BYTES = 64 * 1024;

export function bounded(text: string): string {
  if (text.length <= MESSAGE_TEXT_BYTES) return text;
  const half = MESSAGE_TEXT_BYTES / 2;
  return `${text.slice(0, half)}\n[… ${text.length - MESSAGE_TEXT_BYTES} characters left out …]\n${text.slice(-half)}`;
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

/** The messages of a transcript as they are gathered, each bounded. */
export class EvidenceMessages {
  readonly messages: AgentMessage[] = [];
  private calls = 0;
  /** The ids of shell calls: their results are a command's. */
  private readonly commands = new Set<string>();

  constructor(private readonly prefix: string) {}

  push(message: ChatMessage): void {
    const content = typeof message.content === 'string' ? bounded(message.content) : message.content;
    this.messages.push({ message: { ...message, content } as ChatMessage });
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
      content: this.commands.has(id) ? commandResult(text, exitCode) : failed ? `error: ${text}` : text,
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
