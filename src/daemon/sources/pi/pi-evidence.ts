// A pi session as ai-zen messages, for the offline and summary executors (X3): the branch the
// session is on (pi keeps a tree: each entry names its parent; the last entry written is the leaf,
// and `/tree` branches are left out), the user's words, the assistant's text, and its tool calls
// under ai-zen's tool names — write/edit with a `path` relative to the repo, read with its `path`,
// bash as exec with a result that ends in `[exit code N]` (pi reports a failing command as an error
// result ending "Command exited with code N"). Read once, when a handoff starts; never written.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ChatMessage } from '../../../session/format.js';
import type { AgentMessage } from '../../../session/session-recorder.js';

type Entry = Record<string, unknown> & { readonly id: string; readonly parentId: string | null };

export async function readPiEvidence(file: string, root: string): Promise<AgentMessage[]> {
  return piTranscriptMessages((await fs.readFile(file, 'utf8')).split('\n'), root);
}

export function piTranscriptMessages(lines: readonly string[], root: string): AgentMessage[] {
  let cwd = root;
  const byId = new Map<string, Entry>();
  let leaf: Entry | null = null;
  for (const text of lines) {
    if (text.trim() === '') continue;
    let line: Record<string, unknown>;
    try {
      const value: unknown = JSON.parse(text);
      if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
      line = value as Record<string, unknown>;
    } catch {
      continue; // a torn last line
    }
    if (line.type === 'session' && typeof line.cwd === 'string' && path.isAbsolute(line.cwd)) cwd = line.cwd;
    if (typeof line.id !== 'string' || line.type === 'session') continue;
    const entry = { ...line, id: line.id, parentId: typeof line.parentId === 'string' ? line.parentId : null } as Entry;
    byId.set(entry.id, entry);
    leaf = entry;
  }
  const branch: Entry[] = [];
  const seen = new Set<string>();
  for (let entry = leaf; entry !== null && !seen.has(entry.id); entry = entry.parentId ? (byId.get(entry.parentId) ?? null) : null) {
    seen.add(entry.id);
    branch.push(entry);
  }
  branch.reverse();

  const relative = (file: string): string => {
    const inside = path.relative(root, path.resolve(cwd, file));
    return inside !== '' && !inside.startsWith('..') && !path.isAbsolute(inside) ? inside : file;
  };
  const messages: AgentMessage[] = [];
  const bashCalls = new Set<string>();
  for (const entry of branch) {
    if (entry.type !== 'message') continue;
    const message = entry.message as Record<string, unknown> | undefined;
    const chat = message ? toChat(message, relative, bashCalls) : null;
    if (chat) messages.push({ message: chat });
  }
  return messages;
}

function toChat(message: Record<string, unknown>, relative: (file: string) => string, bashCalls: Set<string>): ChatMessage | null {
  switch (message.role) {
    case 'user': {
      const text = textOf(message.content);
      return text.trim() === '' ? null : { role: 'user', content: text };
    }
    case 'assistant': {
      if (!Array.isArray(message.content)) return null;
      const texts: string[] = [];
      const calls: NonNullable<ChatMessage['tool_calls']> = [];
      for (const block of message.content as Record<string, unknown>[]) {
        if (block?.type === 'text' && typeof block.text === 'string') texts.push(block.text);
        if (block?.type === 'toolCall' && typeof block.id === 'string' && typeof block.name === 'string')
          calls.push(toolCall(block.id, block.name, asRecord(block.arguments), relative, bashCalls));
      }
      if (texts.length === 0 && calls.length === 0) return null;
      return { role: 'assistant', content: texts.join('\n'), ...(calls.length > 0 ? { tool_calls: calls } : {}) };
    }
    case 'toolResult': {
      if (typeof message.toolCallId !== 'string') return null;
      const text = textOf(message.content);
      const failed = message.isError === true;
      if (!bashCalls.has(message.toolCallId))
        return { role: 'tool', tool_call_id: message.toolCallId, content: failed ? `error: ${text}` : text };
      const code = failed ? /Command exited with code (-?\d+)/.exec(text)?.[1] : '0';
      return {
        role: 'tool',
        tool_call_id: message.toolCallId,
        content: code === undefined ? `error: ${text}` : `${text}\n[exit code ${code}]`,
      };
    }
    case 'bashExecution': {
      // A command the person ran with `!`: what they did, as a command with its exit status.
      if (typeof message.command !== 'string') return null;
      const code = typeof message.exitCode === 'number' ? message.exitCode : null;
      return { role: 'user', content: `!${message.command}${code === null ? '' : ` (exit ${code})`}` };
    }
    default:
      return null;
  }
}

const FILE_TOOLS: Readonly<Record<string, string>> = { write: 'write', edit: 'edit', read: 'read' };

function toolCall(
  id: string,
  name: string,
  args: Record<string, unknown> | null,
  relative: (file: string) => string,
  bashCalls: Set<string>,
): NonNullable<ChatMessage['tool_calls']>[number] {
  const fileTool = FILE_TOOLS[name];
  if (fileTool && typeof args?.path === 'string')
    return { id, type: 'function', function: { name: fileTool, arguments: JSON.stringify({ path: relative(args.path) }) } };
  if (name === 'bash' && typeof args?.command === 'string') {
    bashCalls.add(id);
    return { id, type: 'function', function: { name: 'exec', arguments: JSON.stringify({ command: args.command }) } };
  }
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args ?? {}) } };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Record<string, unknown>[])
    .map((block) => (block?.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .filter((text) => text.length > 0)
    .join('\n');
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
