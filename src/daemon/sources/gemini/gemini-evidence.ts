// A Gemini CLI session as ai-zen messages, for the offline and summary executors (X3): the
// conversation as the client itself rebuilds it (a message written again under its id replaces the
// first, `$set.messages` replaces them all, `$rewindTo` drops from an id on), then the person's
// words (not the client's `<session_context>`, not function responses), the model's text, and its
// tool calls under ai-zen's names — write_file as write, replace as edit, read_file as read (each
// with a `path` relative to the repo), run_shell_command as exec with a result ending in
// `[exit code N]`. Read when a handoff starts, as a stream (twice: gemini-conversation.ts); the
// transcript is only ever read.
import type { ChatMessage } from '../../../session/format.js';
import type { AgentMessage } from '../../../session/session-recorder.js';
import type { EvidenceOptions, TranscriptEvidence } from '../../watching/session-source.js';
import { commandResult, contentText, EvidenceMessages, repoRelative, type ToolNames, toolCallOf } from '../kit/evidence.js';
import { asRecord, type JsonRecord } from '../kit/json-record.js';
import { linesAt, memoryLinesAt, placedMemoryLines } from '../kit/lines-at.js';
import { placedLines } from '../kit/transcript-lines.js';
import { GeminiConversation, type MessagePlaces } from './gemini-conversation.js';
import { userWords } from './gemini-fold.js';

const TOOLS: ToolNames = {
  files: {
    write_file: { tool: 'write', key: 'file_path' },
    replace: { tool: 'edit', key: 'file_path' },
    read_file: { tool: 'read', key: 'file_path' },
  },
  shell: 'run_shell_command',
};

/** Read twice: where each message of the rebuilt conversation is, then those lines alone (gemini-conversation.ts). */
export async function readGeminiEvidence(file: string, root: string, options: EvidenceOptions = {}): Promise<TranscriptEvidence> {
  const places = await placesOf(file, options);
  const evidence = new EvidenceMessages('gemini', options);
  const relative = (target: string) => repoRelative(root, target);
  const messagesOf = places.reader();
  for await (const text of linesAt(file, places.lines())) {
    for (const record of messagesOf(text)) addRecord(evidence, record, relative);
    if (evidence.done()) break;
  }
  return evidence.gathered();
}

/** The places alone: the map of the messages by id is let go of before they are read (V8 lets garbage grow with what is live). */
async function placesOf(file: string, options: EvidenceOptions): Promise<MessagePlaces> {
  const rebuilt = new GeminiConversation();
  for await (const line of placedLines(file, options)) rebuilt.line(line.text, line);
  return rebuilt.places();
}

/** The messages in the order the client would resume them, from lines already in memory (a test's, a bench's). */
export function conversation(lines: readonly string[]): JsonRecord[] {
  const rebuilt = new GeminiConversation();
  for (const line of placedMemoryLines(lines)) rebuilt.line(line.text, line);
  const places = rebuilt.places();
  const messagesOf = places.reader();
  return [...memoryLinesAt(lines, places.lines())].flatMap((text) => messagesOf(text));
}

export function geminiSessionMessages(records: readonly JsonRecord[], root: string): readonly AgentMessage[] {
  const evidence = new EvidenceMessages('gemini');
  const relative = (file: string) => repoRelative(root, file);
  for (const record of records) addRecord(evidence, record, relative);
  return evidence.gathered().messages;
}

function addRecord(evidence: EvidenceMessages, record: JsonRecord, relative: (file: string) => string): void {
  if (record.type === 'user') {
    evidence.text('user', userWords(record.content));
    return;
  }
  if (record.type !== 'gemini') return;
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
  if (text === '' && toolCalls.length === 0) return;
  evidence.push({ role: 'assistant', content: text === '' ? null : text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) });
  for (const result of results) evidence.push(result);
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
