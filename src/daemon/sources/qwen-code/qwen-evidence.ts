// A Qwen Code transcript as the messages ai-zen's offline and summary executors read (X3):
// the user's own words (`user` lines), the assistant's text, and its tool calls under ai-zen's tool
// names — write_file/edit/notebook_edit as write/edit with a `path`, read_file as read, and
// run_shell_command as exec with a result that ends in `[exit code N]` (Qwen's `tool_result` line
// carries the exit code in `toolCallResult.resultDisplay.exitCode`, and "Exit Code: N" in the
// text the model read). Read once, when a handoff starts; the transcript is only ever read.
import type { ChatMessage } from '../../../session/format.js';
import type { EvidenceOptions, TranscriptEvidence } from '../../watching/session-source.js';
import { EvidenceMessages, evidenceReader, type ToolCall, type ToolNames } from '../kit/evidence.js';
import { asRecord, type JsonRecord, parseRecord } from '../kit/json-record.js';
import type { TranscriptCollector } from '../kit/transcript-lines.js';

const TOOLS: ToolNames = {
  files: {
    write_file: { tool: 'write', key: 'file_path' },
    edit: { tool: 'edit', key: 'file_path' },
    notebook_edit: { tool: 'edit', key: 'notebook_path' },
    read_file: { tool: 'read', key: 'file_path' },
  },
  shell: 'run_shell_command',
};

export const { file: readQwenEvidence, lines: qwenTranscriptMessages } = evidenceReader(qwenEvidence);

function qwenEvidence(options: EvidenceOptions): TranscriptCollector<TranscriptEvidence> {
  const evidence = new EvidenceMessages('qwen', options);
  return {
    line(text) {
      const line = parseRecord(text); // null: a torn last line
      const parts = asRecord(line?.message)?.parts;
      if (!line || !Array.isArray(parts)) return;
      if (line.type === 'user') evidence.text('user', textOf(parts));
      else if (line.type === 'assistant') {
        const assistant = assistantMessage(evidence, parts);
        if (assistant) evidence.push(assistant);
      } else if (line.type === 'tool_result') toolResults(evidence, parts, asRecord(line.toolCallResult));
    },
    result: () => evidence.gathered(),
    done: () => evidence.done(),
  };
}

function textOf(parts: readonly unknown[]): string {
  return parts
    .map((part) => asRecord(part))
    .filter((part) => part !== null && part.thought !== true && typeof part.text === 'string')
    .map((part) => part!.text as string)
    .join('\n');
}

function assistantMessage(evidence: EvidenceMessages, parts: readonly unknown[]): ChatMessage | null {
  const calls: ToolCall[] = [];
  for (const part of parts) {
    const call = asRecord(asRecord(part)?.functionCall);
    if (call && typeof call.id === 'string' && typeof call.name === 'string')
      calls.push(evidence.toolCall(call.id, call.name, asRecord(call.args) ?? {}, TOOLS));
  }
  const content = textOf(parts);
  if (content.trim() === '' && calls.length === 0) return null;
  return { role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

/** A `tool_result` line: one functionResponse per call; a shell call's result ends in its exit code. */
function toolResults(evidence: EvidenceMessages, parts: readonly unknown[], outcome: JsonRecord | null): void {
  for (const part of parts) {
    const response = asRecord(asRecord(part)?.functionResponse);
    if (!response || typeof response.id !== 'string') continue;
    const body = asRecord(response.response);
    const error = typeof body?.error === 'string' ? body.error : null;
    const output = typeof body?.output === 'string' ? body.output : error !== null ? '' : JSON.stringify(body ?? {});
    const display = asRecord(outcome?.resultDisplay);
    const code = typeof display?.exitCode === 'number' ? display.exitCode : /^Exit Code: (-?\d+)$/m.exec(output)?.[1];
    // An error is written as one here, a shell call's too (its exit code after it): the text says so, not the flag.
    evidence.result(response.id, error !== null ? `error: ${error}` : output, false, code);
  }
}
