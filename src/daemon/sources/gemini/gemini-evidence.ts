// A Gemini CLI session as ai-zen messages, for the offline and summary executors (X3, issue 24): the
// conversation as the client itself rebuilds it (a message written again under its id replaces the
// first, `$set.messages` replaces them all, `$rewindTo` drops from an id on), then the person's
// words (not the client's `<session_context>`, not function responses), the model's text, and its
// tool calls under ai-zen's names — write_file as write, replace as edit, read_file as read (each
// with a `path` relative to the repo), run_shell_command as exec with a result ending in
// `[exit code N]`. Read once, when a handoff starts; the transcript is only ever read.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ChatMessage } from '../../../session/format.js';
import type { AgentMessage } from '../../../session/session-recorder.js';
import { userWords } from './gemini-fold.js';

type Json = Record<string, unknown>;

/** Gemini's tool → ai-zen's tool, for those that name one file. */
const FILE_TOOLS: Record<string, string> = { write_file: 'write', replace: 'edit', read_file: 'read' };

export async function readGeminiEvidence(file: string, root: string): Promise<AgentMessage[]> {
  const text = await fs.readFile(file, 'utf8');
  return geminiSessionMessages(conversation(text.split('\n')), root);
}

/** The messages in the order the client would resume them. */
export function conversation(lines: readonly string[]): Json[] {
  const messages = new Map<string, Json>();
  for (const text of lines) {
    if (text.trim() === '') continue;
    let line: Json | null;
    try {
      line = asRecord(JSON.parse(text));
    } catch {
      continue; // a torn last line
    }
    if (!line) continue;
    if (typeof line.$rewindTo === 'string') {
      const ids = [...messages.keys()];
      const from = ids.indexOf(line.$rewindTo);
      for (const id of from === -1 ? ids : ids.slice(from)) messages.delete(id);
    } else if (asRecord(line.$set) && Array.isArray(asRecord(line.$set)!.messages)) {
      messages.clear();
      for (const entry of asRecord(line.$set)!.messages as unknown[]) {
        const message = asRecord(entry);
        if (message && typeof message.id === 'string') messages.set(message.id, message);
      }
    } else if (typeof line.id === 'string' && typeof line.type === 'string') {
      messages.set(line.id, line);
    }
  }
  return [...messages.values()];
}

export function geminiSessionMessages(records: readonly Json[], root: string): AgentMessage[] {
  const out: AgentMessage[] = [];
  const relative = (file: unknown): string => {
    const named = typeof file === 'string' ? file : '';
    const inside = path.relative(root, path.resolve(root, named));
    return inside !== '' && !inside.startsWith('..') && !path.isAbsolute(inside) ? inside : named;
  };
  for (const record of records) {
    if (record.type === 'user') {
      const words = userWords(record.content);
      if (words !== '') out.push({ message: { role: 'user', content: words } });
      continue;
    }
    if (record.type !== 'gemini') continue;
    const text = contentText(record.content);
    const calls = Array.isArray(record.toolCalls) ? (record.toolCalls as unknown[]).map(asRecord).filter((call) => call !== null) : [];
    const toolCalls: NonNullable<ChatMessage['tool_calls']> = [];
    const results: ChatMessage[] = [];
    for (const [index, call] of calls.entries()) {
      if (typeof call.name !== 'string') continue;
      const id = typeof call.id === 'string' ? call.id : `gemini_call_${out.length}_${index}`;
      const args = asRecord(call.args) ?? {};
      const fileTool = FILE_TOOLS[call.name];
      const [name, mapped] =
        fileTool !== undefined
          ? [fileTool, { path: relative(args.file_path) }]
          : call.name === 'run_shell_command'
            ? ['exec', { command: typeof args.command === 'string' ? args.command : '' }]
            : [call.name, args];
      toolCalls.push({ id, type: 'function', function: { name, arguments: JSON.stringify(mapped) } });
      results.push({ role: 'tool', tool_call_id: id, content: resultText(call, name === 'exec') });
    }
    if (text === '' && toolCalls.length === 0) continue;
    out.push({
      message: { role: 'assistant', content: text === '' ? null : text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
    });
    for (const result of results) out.push({ message: result });
  }
  return out;
}

/** What the tool answered the model; a command's ends in `[exit code N]` (the client says `Exit Code: N` when it is not 0). */
function resultText(call: Json, isCommand: boolean): string {
  const responses = Array.isArray(call.result) ? (call.result as unknown[]) : [];
  const response = asRecord(asRecord(asRecord(responses[0])?.functionResponse)?.response);
  const output = typeof response?.output === 'string' ? response.output : typeof response?.error === 'string' ? response.error : '';
  const failed = call.status !== 'success';
  if (!isCommand) return failed ? `error: ${output}` : output;
  if (call.status === 'cancelled') return `${output}\n[killed or still running]`;
  const code = /Exit Code: (-?\d+)/.exec(output)?.[1] ?? (failed ? undefined : '0');
  return code === undefined ? `error: ${output}` : `${output}\n[exit code ${code}]`;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => asRecord(part)?.text)
    .filter((text): text is string => typeof text === 'string')
    .join('\n');
}

function asRecord(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}
