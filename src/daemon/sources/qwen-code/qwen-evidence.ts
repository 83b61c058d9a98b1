// A Qwen Code transcript as the messages ai-zen's offline and summary executors read (X3, issue 24):
// the user's own words (`user` lines), the assistant's text, and its tool calls under ai-zen's tool
// names — write_file/edit/notebook_edit as write/edit with a `path`, read_file as read, and
// run_shell_command as exec with a result that ends in `[exit code N]` (Qwen's `tool_result` line
// carries the exit code in `toolCallResult.resultDisplay.exitCode`, and "Exit Code: N" in the
// text the model read). Read once, when a handoff starts; the transcript is only ever read.
import type { ChatMessage } from '../../../session/format.js';
import type { AgentMessage } from '../../../session/session-recorder.js';
import { commandResult, EvidenceMessages, type ToolNames, toolCallOf } from '../kit/evidence.js';
import { asRecord, type JsonRecord, parseRecord } from '../kit/json-record.js';
import { foldTranscript, type TranscriptCollector } from '../kit/transcript-lines.js';

const TOOLS: ToolNames = {
  files: {
    write_file: { tool: 'write', key: 'file_path' },
    edit: { tool: 'edit', key: 'file_path' },
    notebook_edit: { tool: 'edit', key: 'notebook_path' },
    read_file: { tool: 'read', key: 'file_path' },
  },
  shell: 'run_shell_command',
};

export function readQwenEvidence(file: string): Promise<AgentMessage[]> {
  return foldTranscript(file, qwenEvidence());
}

export function qwenTranscriptMessages(lines: readonly string[]): AgentMessage[] {
  const collector = qwenEvidence();
  for (const line of lines) collector.line(line);
  return collector.result();
}

function qwenEvidence(): TranscriptCollector<AgentMessage[]> {
  const evidence = new EvidenceMessages('qwen');
  const shellCalls = new Set<string>();
  return {
    line(text) {
      const line = parseRecord(text); // null: a torn last line
      const parts = asRecord(line?.message)?.parts;
      if (!line || !Array.isArray(parts)) return;
      if (line.type === 'user') evidence.text('user', textOf(parts));
      else if (line.type === 'assistant') {
        const assistant = assistantMessage(parts, shellCalls);
        if (assistant) evidence.push(assistant);
      } else if (line.type === 'tool_result')
        for (const result of toolResults(parts, asRecord(line.toolCallResult), shellCalls)) evidence.push(result);
    },
    result: () => evidence.messages,
  };
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
    const mapped = toolCallOf(call.id, call.name, asRecord(call.args) ?? {}, TOOLS);
    if (mapped.shell) shellCalls.add(call.id);
    calls.push(mapped.call);
  }
  const content = textOf(parts);
  if (content.trim() === '' && calls.length === 0) return null;
  return { role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

/** A `tool_result` line: one functionResponse per call; a shell call's result ends in its exit code. */
function toolResults(parts: readonly unknown[], outcome: JsonRecord | null, shellCalls: ReadonlySet<string>): ChatMessage[] {
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
      const code = typeof display?.exitCode === 'number' ? display.exitCode : /^Exit Code: (-?\d+)$/m.exec(output)?.[1];
      content = commandResult(content, code);
    }
    results.push({ role: 'tool', tool_call_id: response.id, content });
  }
  return results;
}
