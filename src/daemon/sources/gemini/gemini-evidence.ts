// A Gemini CLI session as ai-zen messages, for the offline and summary executors (X3): the
// conversation as the client itself rebuilds it (a message written again under its id replaces the
// first, `$set.messages` replaces them all, `$rewindTo` drops from an id on), then the person's
// words (not the client's `<session_context>`, not function responses), the model's text, and its
// tool calls under ai-zen's names — write_file as write, replace as edit, read_file as read (each
// with a `path` relative to the repo), run_shell_command as exec with a result ending in
// `[exit code N]`. Read once, when a handoff starts; the transcript is only ever read.
import type { ChatMessage } from '../../../session/format.js';
import type { AgentMessage } from '../../../session/session-recorder.js';
import type { EvidenceOptions, TranscriptEvidence } from '../../watching/session-source.js';
import { commandResult, contentText, EvidenceMessages, repoRelative, type ToolNames, toolCallOf } from '../kit/evidence.js';
import { asRecord, type JsonRecord, parseRecord } from '../kit/json-record.js';
import { type TranscriptCollector, transcriptReader } from '../kit/transcript-lines.js';
import { userWords } from './gemini-fold.js';

const TOOLS: ToolNames = {
  files: {
    write_file: { tool: 'write', key: 'file_path' },
    replace: { tool: 'edit', key: 'file_path' },
    read_file: { tool: 'read', key: 'file_path' },
  },
  shell: 'run_shell_command',
};

/** The messages in the order the client would resume them. */
const conversationOf = transcriptReader(conversationCollector);
export const conversation = conversationOf.lines;

export async function readGeminiEvidence(file: string, root: string, options: EvidenceOptions = {}): Promise<TranscriptEvidence> {
  return geminiSessionEvidence(await conversationOf.file(file, options), root, options);
}

function conversationCollector(): TranscriptCollector<JsonRecord[]> {
  const messages = new Map<string, JsonRecord>();
  return {
    line(text) {
      const line = parseRecord(text); // null: a torn last line
      if (!line) return;
      const patch = asRecord(line.$set);
      if (typeof line.$rewindTo === 'string') {
        const ids = [...messages.keys()];
        const from = ids.indexOf(line.$rewindTo);
        for (const id of from === -1 ? ids : ids.slice(from)) messages.delete(id);
      } else if (patch && Array.isArray(patch.messages)) {
        messages.clear();
        for (const entry of patch.messages as unknown[]) {
          const message = asRecord(entry);
          if (message && typeof message.id === 'string') messages.set(message.id, message);
        }
      } else if (typeof line.id === 'string' && typeof line.type === 'string') {
        messages.set(line.id, line);
      }
    },
    result: () => [...messages.values()],
  };
}

export function geminiSessionMessages(records: readonly JsonRecord[], root: string): readonly AgentMessage[] {
  return geminiSessionEvidence(records, root, {}).messages;
}

function geminiSessionEvidence(records: readonly JsonRecord[], root: string, options: EvidenceOptions): TranscriptEvidence {
  const evidence = new EvidenceMessages('gemini', options);
  const relative = (file: string) => repoRelative(root, file);
  for (const record of records) {
    if (record.type === 'user') {
      evidence.text('user', userWords(record.content));
      continue;
    }
    if (record.type !== 'gemini') continue;
    const text = contentText(record.content);
    const calls = Array.isArray(record.toolCalls) ? (record.toolCalls as unknown[]).map(asRecord).filter((call) => call !== null) : [];
    const toolCalls: NonNullable<ChatMessage['tool_calls']> = [];
    const results: ChatMessage[] = [];
    for (const [index, call] of calls.entries()) {
      if (typeof call.name !== 'string') continue;
      const id = typeof call.id === 'string' ? call.id : `gemini_call_${evidence.count}_${index}`;
      const mapped = toolCallOf(id, call.name, asRecord(call.args) ?? {}, TOOLS, relative);
      toolCalls.push(mapped.call);
      results.push({ role: 'tool', tool_call_id: id, content: resultText(call, mapped.shell) });
    }
    if (text === '' && toolCalls.length === 0) continue;
    evidence.push({ role: 'assistant', content: text === '' ? null : text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) });
    for (const result of results) evidence.push(result);
  }
  return evidence.gathered();
}

/** What the tool answered the model; a command's ends in `[exit code N]` (the client says `Exit Code: N` when it is not 0). */
function resultText(call: JsonRecord, isCommand: boolean): string {
  const responses = Array.isArray(call.result) ? (call.result as unknown[]) : [];
  const response = asRecord(asRecord(asRecord(responses[0])?.functionResponse)?.response);
  const output = typeof response?.output === 'string' ? response.output : typeof response?.error === 'string' ? response.error : '';
  const failed = call.status !== 'success';
  if (!isCommand) return failed ? `error: ${output}` : output;
  if (call.status === 'cancelled') return `${output}\n[killed or still running]`;
  return commandResult(output, /Exit Code: (-?\d+)/.exec(output)?.[1] ?? (failed ? undefined : 0));
}
