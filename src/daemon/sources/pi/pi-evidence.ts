// A pi session as ai-zen messages, for the offline and summary executors (X3): the branch the
// session is on (pi keeps a tree: each entry names its parent; the last entry written is the leaf,
// and `/tree` branches are left out), the user's words, the assistant's text, and its tool calls
// under ai-zen's tool names — write/edit with a `path` relative to the repo, read with its `path`,
// bash as exec with a result that ends in `[exit code N]` (pi reports a failing command as an error
// result ending "Command exited with code N"). Read when a handoff starts, as a stream (twice: pi-branch.ts);
// never written.
import type { EvidenceOptions, TranscriptEvidence } from '../../watching/session-source.js';
import { contentText, EvidenceMessages, repoRelative, type ToolNames } from '../kit/evidence.js';
import { asRecord, type JsonRecord, parseRecord } from '../kit/json-record.js';
import { linesAt, memoryLinesAt, placedMemoryLines } from '../kit/lines-at.js';
import { type LinePlace, placedLines } from '../kit/transcript-lines.js';
import { PiBranch } from './pi-branch.js';

const TOOLS: ToolNames = {
  files: { write: { tool: 'write', key: 'path' }, edit: { tool: 'edit', key: 'path' }, read: { tool: 'read', key: 'path' } },
  shell: 'bash',
};

/** Read twice: the entries' ids and parents to find the branch, then the branch's lines alone (pi-branch.ts). */
export async function readPiEvidence(file: string, options: EvidenceOptions = {}, root: string): Promise<TranscriptEvidence> {
  const { cwd, branch } = await piBranch(file, options, root);
  const evidence = new EvidenceMessages('pi', options);
  const relative = (target: string): string => repoRelative(root, target, cwd);
  for await (const text of linesAt(file, branch)) {
    if (evidence.done()) break;
    addEntry(evidence, text, relative);
  }
  return evidence.gathered();
}

/** The branch's places and the session's folder: the entries' map is let go of once the branch is found (V8 lets garbage grow with what is live). */
async function piBranch(file: string, options: EvidenceOptions, root: string): Promise<{ cwd: string; branch: Iterable<LinePlace> }> {
  const tree = new PiBranch(root);
  for await (const line of placedLines(file, options)) tree.line(line.text, line);
  return { cwd: tree.cwd, branch: tree.branch() };
}

/** The same over lines already in memory (a test's, a bench's). */
export function piTranscriptMessages(lines: readonly string[], root: string): TranscriptEvidence['messages'] {
  const tree = new PiBranch(root);
  for (const line of placedMemoryLines(lines)) tree.line(line.text, line);
  const evidence = new EvidenceMessages('pi');
  const relative = (target: string): string => repoRelative(root, target, tree.cwd);
  for (const text of memoryLinesAt(lines, tree.branch())) addEntry(evidence, text, relative);
  return evidence.messages;
}

function addEntry(evidence: EvidenceMessages, text: string, relative: (file: string) => string): void {
  const entry = parseRecord(text); // null: a line cut since the first pass
  const message = entry?.type === 'message' ? asRecord(entry.message) : null;
  if (message) addMessage(evidence, message, relative);
}

function addMessage(evidence: EvidenceMessages, message: JsonRecord, relative: (file: string) => string): void {
  switch (message.role) {
    case 'user':
      evidence.text('user', contentText(message.content));
      return;
    case 'assistant': {
      const assistant = evidence.blocks(message.content, { type: 'toolCall', args: 'arguments' }, TOOLS, relative);
      if (assistant) evidence.push(assistant);
      return;
    }
    case 'toolResult': {
      if (typeof message.toolCallId !== 'string') return;
      const text = contentText(message.content);
      const failed = message.isError === true;
      // pi reports a failing command as an error result ending "Command exited with code N".
      evidence.result(message.toolCallId, text, failed, failed ? /Command exited with code (-?\d+)/.exec(text)?.[1] : 0);
      return;
    }
    case 'bashExecution': {
      // A command the person ran with `!`: what they did, as a command with its exit status.
      if (typeof message.command !== 'string') return;
      const code = typeof message.exitCode === 'number' ? message.exitCode : null;
      evidence.push({ role: 'user', content: `!${message.command}${code === null ? '' : ` (exit ${code})`}` });
    }
  }
}
