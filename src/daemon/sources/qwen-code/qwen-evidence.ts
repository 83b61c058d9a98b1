// A Qwen Code transcript as the messages ai-zen's offline and summary executors read (X3, issue 24):
// the user's own words (`user` lines), the assistant's text, and its tool calls under ai-zen's tool
// names — write_file/edit/notebook_edit as write/edit with a `path`, read_file as read, and
// run_shell_command as exec with a result that ends in `[exit code N]` (Qwen's `tool_result` line
// carries the exit code in `toolCallResult.resultDisplay.exitCode`, and "Exit Code: N" in the
// text the model read). Read once, when a handoff starts; the transcript is only ever read.
import { promises as fs } from 'node:fs';
import type { ChatMessage } from '../../../session/format.js';
import type { AgentMessage } from '../../../session/session-recorder.js';

/** Qwen's tool → ai-zen's tool and the argument that names the file. */
const FILE_TOOLS: Record<string, { readonly tool: string; readonly key: string }> = {
  write_file: { tool: 'write', key: 'file_path' },
  edit: { tool: 'edit', key: 'file_path' },
  notebook_edit: { tool: 'edit', key: 'notebook_path' },
  read_file: { tool: 'read', key: 'file_path' },
};
const SHELL_TOOL = 'run_shell_command';

export async function readQwenEvidence(file: string): Promise<AgentMessage[]> {
  return qwenTranscriptMessages((await fs.readFile(file, 'utf8')).split('\n'));
}

export function qwenTranscriptMessages(lines: readonly string[]): AgentMessage[] {
  const messages: AgentMessage[] = [];
  const shellCalls = new Set<string>();
  for (const text of lines) {
    if (text.trim() === '') continue;
    let line: Record<string, unknown> | null;
    try {
      line = asRecord(JSON.parse(text));
    } catch {
      continue; // a torn last line
    }
    const parts = asRecord(line?.message)?.parts;
    if (!line || !Array.isArray(parts)) continue;
    if (line.type === 'user') {
      const words = textOf(parts);
      if (words.trim() !== '') messages.push({ message: { role: 'user', content: words } });
    } else if (line.type === 'assistant') {
      const assistant = assistantMessage(parts, shellCalls);
      if (assistant) messages.push({ message: assistant });
    } else if (line.type === 'tool_result') {
      for (const result of toolResults(parts, asRecord(line.toolCallResult), shellCalls)) messages.push({ message: result });
    }
  }
  return messages;
}

function textOf(parts: readonly unknown[]): string {
  return parts
    .map((part) => asRecord(part))
    .filter((part) => part !== null && part.thought !== true && typeof part.text === 'string')
    .map((part) => part!.text as string)
    .join('\n');
}

function assistantMessage(parts: readonly unknown[], shellCalls: Set<string>): ChatMessage | null {
  const calls: NonNullable<ChatMessage['tool_calls']> = [];
  for (const part of parts) {
    const call = asRecord(asRecord(part)?.functionCall);
    if (!call || typeof call.id !== 'string' || typeof call.name !== 'string') continue;
    const args = asRecord(call.args) ?? {};
    calls.push(toolCall(call.id, call.name, args, shellCalls));
  }
  const content = textOf(parts);
  if (content.trim() === '' && calls.length === 0) return null;
  return { role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

function toolCall(id: string, name: string, args: Record<string, unknown>, shellCalls: Set<string>) {
  const file = FILE_TOOLS[name];
  const call = (tool: string, input: Record<string, unknown>) =>
    ({ id, type: 'function', function: { name: tool, arguments: JSON.stringify(input) } }) as const;
  if (file && typeof args[file.key] === 'string') return call(file.tool, { path: args[file.key] });
  if (name === SHELL_TOOL && typeof args.command === 'string') {
    shellCalls.add(id);
    return call('exec', { command: args.command });
  }
  return call(name, args);
}

/** A `tool_result` line: one functionResponse per call; a shell call's result ends in its exit code. */
function toolResults(parts: readonly unknown[], outcome: Record<string, unknown> | null, shellCalls: ReadonlySet<string>): ChatMessage[] {
  const results: ChatMessage[] = [];
  for (const part of parts) {
    const response = asRecord(asRecord(part)?.functionResponse);
    if (!response || typeof response.id !== 'string') continue;
    const body = asRecord(response.response);
    const error = typeof body?.error === 'string' ? body.error : null;
    const output = typeof body?.output === 'string' ? body.output : error !== null ? '' : JSON.stringify(body ?? {});
    let content = error !== null ? `error: ${error}` : output;
    if (shellCalls.has(response.id)) {
      const display = asRecord(outcome?.resultDisplay);
      const code =
        typeof display?.exitCode === 'number' ? display.exitCode : Number(/^Exit Code: (-?\d+)$/m.exec(output)?.[1] ?? Number.NaN);
      content = Number.isInteger(code) ? `${content}\n[exit code ${code}]` : `error: ${content}`;
    }
    results.push({ role: 'tool', tool_call_id: response.id, content });
  }
  return results;
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
