// A Cline CLI conversation as ai-zen messages, for the offline and summary executors: the user's own
// words (the `<user_input>` Cline wraps them in taken off; a hook's context is not theirs), the assistant's text, each command of a
// `run_commands` call as an `exec` call with its result, and each file an `apply_patch` or `editor`
// call changed as a `write` / `edit` / `rm` call (paths relative to the repo). The file is one JSON
// document that Cline rewrites whole as `JSON.stringify(…, null, 2)`; it is streamed a line at a time
// (cline-messages.ts), one message parsed at a time, so a conversation of any size is read in bounded memory.
import type { EvidenceOptions, TranscriptEvidence } from '../../watching/session-source.js';
import { EvidenceMessages, repoRelative } from '../kit/evidence.js';
import { asRecord, type JsonRecord } from '../kit/json-record.js';
import { clineMessages } from './cline-messages.js';

export async function readClineEvidence(file: string, root: string, options: EvidenceOptions = {}): Promise<TranscriptEvidence> {
  const evidence = new EvidenceMessages('cline', options);
  const calls = new Map<string, { name: string; input: JsonRecord }>();
  try {
    for await (const message of clineMessages(file, options)) {
      if (evidence.done()) break;
      addMessage(evidence, message, calls, root);
    }
  } catch {
    // Missing, or not a regular file (a FIFO is refused, never waited on): no evidence rather than a wrong one.
  }
  return evidence.gathered();
}

function addMessage(
  evidence: EvidenceMessages,
  message: JsonRecord,
  calls: Map<string, { name: string; input: JsonRecord }>,
  root: string,
): void {
  if (!Array.isArray(message.content)) return;
  // What Cline adds as the user's but is not theirs (a hook's <hook_context>): shown to the model only.
  if (asRecord(message.metadata)?.displayRole === 'system') return;
  for (const block of message.content.map(asRecord)) {
    if (!block) continue;
    if (block.type === 'text' && typeof block.text === 'string') {
      if (message.role === 'user') evidence.text('user', userWords(block.text));
      else if (message.role === 'assistant') evidence.text('assistant', block.text);
    } else if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
      calls.set(block.id, { name: block.name, input: asRecord(block.input) ?? {} });
    } else if (block.type === 'tool_result' && typeof block.tool_use_id === 'string') {
      const call = calls.get(block.tool_use_id);
      // A call answered is let go of: the calls held are only those still waiting for their result.
      calls.delete(block.tool_use_id);
      if (call) completed(evidence, call, block.content, root);
    }
  }
}

/** What the person typed: Cline sends it as `<user_input mode="act">…</user_input>`. */
function userWords(text: string): string {
  const match = /^<user_input(?: [^>]*)?>([\s\S]*)<\/user_input>$/.exec(text.trim());
  return match ? match[1]! : text;
}

function completed(evidence: EvidenceMessages, call: { name: string; input: JsonRecord }, content: unknown, root: string): void {
  if (call.name === 'run_commands') {
    const results = Array.isArray(content) ? content.map(asRecord) : [];
    for (const result of results) {
      if (!result || typeof result.query !== 'string') continue;
      const output = typeof result.result === 'string' ? result.result : '';
      evidence.call('exec', { command: result.query }, result.success === true ? `${output}\n[exit code 0]` : `error: ${output}`);
    }
    return;
  }
  const failed = typeof content === 'string' && /"success":\s*false/.test(content);
  for (const change of fileChanges(call))
    evidence.call(change.kind, { path: repoRelative(root, change.path) }, failed ? 'error: the edit did not apply' : 'ok');
}

/** The files an edit call names: each file of an apply_patch patch, or the editor's path. */
function fileChanges(call: { name: string; input: JsonRecord }): { kind: 'write' | 'edit' | 'rm'; path: string }[] {
  if (call.name === 'apply_patch' && typeof call.input.input === 'string') {
    const changes: { kind: 'write' | 'edit' | 'rm'; path: string }[] = [];
    for (const match of call.input.input.matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$/gm))
      changes.push({ kind: match[1] === 'Add' ? 'write' : match[1] === 'Delete' ? 'rm' : 'edit', path: match[2]!.trim() });
    return changes;
  }
  // The editor replaces a text, inserts at a line, or makes the file when it is missing: a change either way.
  if (call.name === 'editor' && typeof call.input.path === 'string') return [{ kind: 'edit', path: call.input.path }];
  return [];
}
