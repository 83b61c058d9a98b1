// An opencode session as ai-zen messages, for the offline and summary executors: its messages in
// order, each with its parts — the user's text (not the parts opencode adds itself, `synthetic`),
// the assistant's text and its tool calls under ai-zen's names (write/edit/read with a repo-relative
// `filePath`, bash as exec whose result ends in `[exit code N]`: opencode keeps the exit status in the
// call's metadata). Streamed row by row from the database, read-only, when a handoff starts.
import type { EvidenceOptions, TranscriptEvidence } from '../../watching/session-source.js';
import { EvidenceMessages, repoRelative, type ToolCall, type ToolNames } from '../kit/evidence.js';
import { asRecord, type JsonRecord, parseRecord } from '../kit/json-record.js';
import { openReadOnly } from './opencode-database.js';

const TOOLS: ToolNames = {
  files: {
    write: { tool: 'write', key: 'filePath' },
    edit: { tool: 'edit', key: 'filePath' },
    multiedit: { tool: 'edit', key: 'filePath' },
    read: { tool: 'read', key: 'filePath' },
  },
  shell: 'bash',
};

const ROWS = `SELECT m.id AS message, m.data AS data, p.data AS part FROM message m LEFT JOIN part p ON p.message_id = m.id
  WHERE m.session_id = ? ORDER BY m.time_created, m.id, p.id`;

/** One message's rows gathered: its role and its parts. */
interface Gathered {
  readonly role: unknown;
  readonly parts: JsonRecord[];
}

export async function readOpencodeEvidence(
  database: string,
  sessionId: string,
  root: string,
  options: EvidenceOptions = {},
): Promise<TranscriptEvidence> {
  const evidence = new EvidenceMessages('opencode', options);
  const connection = openReadOnly(database);
  try {
    let id: string | null = null;
    let current: Gathered | null = null;
    for (const row of connection.iterate(ROWS, sessionId)) {
      if (row.message !== id) {
        if (current) addMessage(evidence, current, root);
        if (evidence.done()) return evidence.gathered();
        id = String(row.message);
        current = { role: parseRecord(String(row.data))?.role, parts: [] };
      }
      const part = typeof row.part === 'string' ? parseRecord(row.part) : null;
      if (part) current?.parts.push(part);
    }
    if (current) addMessage(evidence, current, root);
    return evidence.gathered();
  } finally {
    connection.close();
  }
}

/** Rows of a session as the reader would stream them: for a test's database, or a bench's. */
export function opencodeMessages(messages: readonly Gathered[], root: string): TranscriptEvidence {
  const evidence = new EvidenceMessages('opencode');
  for (const message of messages) addMessage(evidence, message, root);
  return evidence.gathered();
}

function addMessage(evidence: EvidenceMessages, message: Gathered, root: string): void {
  const texts = message.parts.filter((part) => part.type === 'text' && part.synthetic !== true && typeof part.text === 'string');
  const text = texts.map((part) => String(part.text)).join('\n');
  if (message.role === 'user') {
    evidence.text('user', text);
    return;
  }
  if (message.role !== 'assistant') return;
  const relative = (file: string): string => repoRelative(root, file);
  const calls: ToolCall[] = [];
  const results: { id: string; output: string; failed: boolean; exit: number | null }[] = [];
  for (const part of message.parts) {
    if (part.type !== 'tool' || typeof part.callID !== 'string' || typeof part.tool !== 'string') continue;
    const state = asRecord(part.state);
    calls.push(evidence.toolCall(part.callID, part.tool, asRecord(state?.input) ?? {}, TOOLS, relative));
    const metadata = asRecord(state?.metadata);
    const failed = state?.status === 'error';
    const output = typeof state?.output === 'string' ? state.output : typeof state?.error === 'string' ? state.error : '';
    results.push({ id: part.callID, output, failed, exit: typeof metadata?.exit === 'number' ? metadata.exit : failed ? null : 0 });
  }
  if (text.trim() === '' && calls.length === 0) return;
  evidence.push({ role: 'assistant', content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
  for (const result of results) evidence.result(result.id, result.output, result.failed, result.exit);
}
