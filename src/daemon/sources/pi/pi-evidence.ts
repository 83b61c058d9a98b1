// A pi session as ai-zen messages, for the offline and summary executors (X3): the branch the
// session is on (pi keeps a tree: each entry names its parent; the last entry written is the leaf,
// and `/tree` branches are left out), the user's words, the assistant's text, and its tool calls
// under ai-zen's tool names — write/edit with a `path` relative to the repo, read with its `path`,
// bash as exec with a result that ends in `[exit code N]` (pi reports a failing command as an error
// result ending "Command exited with code N"). Read once, when a handoff starts; never written.
import path from 'node:path';
import type { ChatMessage } from '../../../session/format.js';
import type { AgentMessage } from '../../../session/session-recorder.js';
import { commandResult, contentText, EvidenceMessages, repoRelative, type ToolNames, toolCallOf } from '../kit/evidence.js';
import { asRecord, type JsonRecord, parseRecord } from '../kit/json-record.js';
import { foldTranscript, type TranscriptCollector } from '../kit/transcript-lines.js';

type Entry = JsonRecord & { readonly id: string; readonly parentId: string | null };

const TOOLS: ToolNames = {
  files: { write: { tool: 'write', key: 'path' }, edit: { tool: 'edit', key: 'path' }, read: { tool: 'read', key: 'path' } },
  shell: 'bash',
};

export function readPiEvidence(file: string, root: string): Promise<AgentMessage[]> {
  return foldTranscript(file, piEvidence(root));
}

export function piTranscriptMessages(lines: readonly string[], root: string): AgentMessage[] {
  const collector = piEvidence(root);
  for (const line of lines) collector.line(line);
  return collector.result();
}

/** The entries are kept as they come (the branch is known only at the end: the last entry written is its leaf). */
function piEvidence(root: string): TranscriptCollector<AgentMessage[]> {
  let cwd = root;
  const byId = new Map<string, Entry>();
  let leaf: Entry | null = null;
  return {
    line(text) {
      const line = parseRecord(text); // null: a torn last line
      if (!line) return;
      if (line.type === 'session' && typeof line.cwd === 'string' && path.isAbsolute(line.cwd)) cwd = line.cwd;
      if (typeof line.id !== 'string' || line.type === 'session') return;
      const entry = { ...line, id: line.id, parentId: typeof line.parentId === 'string' ? line.parentId : null } as Entry;
      byId.set(entry.id, entry);
      leaf = entry;
    },
    result() {
      const branch: Entry[] = [];
      const seen = new Set<string>();
      for (let entry = leaf; entry !== null && !seen.has(entry.id); entry = entry.parentId ? (byId.get(entry.parentId) ?? null) : null) {
        seen.add(entry.id);
        branch.push(entry);
      }
      branch.reverse();
      const relative = (file: string): string => repoRelative(root, file, cwd);
      const evidence = new EvidenceMessages('pi');
      const bashCalls = new Set<string>();
      for (const entry of branch) {
        if (entry.type !== 'message') continue;
        const message = asRecord(entry.message);
        const chat = message ? toChat(message, relative, bashCalls) : null;
        if (chat) evidence.push(chat);
      }
      return evidence.messages;
    },
  };
}

function toChat(message: JsonRecord, relative: (file: string) => string, bashCalls: Set<string>): ChatMessage | null {
  switch (message.role) {
    case 'user': {
      const text = contentText(message.content);
      return text.trim() === '' ? null : { role: 'user', content: text };
    }
    case 'assistant': {
      if (!Array.isArray(message.content)) return null;
      const texts: string[] = [];
      const calls: NonNullable<ChatMessage['tool_calls']> = [];
      for (const block of message.content as JsonRecord[]) {
        if (block?.type === 'text' && typeof block.text === 'string') texts.push(block.text);
        if (block?.type === 'toolCall' && typeof block.id === 'string' && typeof block.name === 'string') {
          const { call, shell } = toolCallOf(block.id, block.name, asRecord(block.arguments) ?? {}, TOOLS, relative);
          if (shell) bashCalls.add(block.id);
          calls.push(call);
        }
      }
      if (texts.length === 0 && calls.length === 0) return null;
      return { role: 'assistant', content: texts.join('\n'), ...(calls.length > 0 ? { tool_calls: calls } : {}) };
    }
    case 'toolResult': {
      if (typeof message.toolCallId !== 'string') return null;
      const text = contentText(message.content);
      const failed = message.isError === true;
      if (!bashCalls.has(message.toolCallId))
        return { role: 'tool', tool_call_id: message.toolCallId, content: failed ? `error: ${text}` : text };
      // pi reports a failing command as an error result ending "Command exited with code N".
      const code = failed ? /Command exited with code (-?\d+)/.exec(text)?.[1] : 0;
      return { role: 'tool', tool_call_id: message.toolCallId, content: commandResult(text, code) };
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
