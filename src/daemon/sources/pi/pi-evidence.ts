// A pi session as ai-zen messages, for the offline and summary executors (X3): the branch the
// session is on (pi keeps a tree: each entry names its parent; the last entry written is the leaf,
// and `/tree` branches are left out), the user's words, the assistant's text, and its tool calls
// under ai-zen's tool names — write/edit with a `path` relative to the repo, read with its `path`,
// bash as exec with a result that ends in `[exit code N]` (pi reports a failing command as an error
// result ending "Command exited with code N"). Read once, when a handoff starts; never written.
import path from 'node:path';
import type { EvidenceOptions, TranscriptEvidence } from '../../watching/session-source.js';
import { contentText, EvidenceMessages, evidenceReader, repoRelative, type ToolNames } from '../kit/evidence.js';
import { asRecord, type JsonRecord, parseRecord } from '../kit/json-record.js';
import type { TranscriptCollector } from '../kit/transcript-lines.js';

type Entry = JsonRecord & { readonly id: string; readonly parentId: string | null };

const TOOLS: ToolNames = {
  files: { write: { tool: 'write', key: 'path' }, edit: { tool: 'edit', key: 'path' }, read: { tool: 'read', key: 'path' } },
  shell: 'bash',
};

export const { file: readPiEvidence, lines: piTranscriptMessages } = evidenceReader(piEvidence);

/** The entries are kept as they come (the branch is known only at the end: the last entry written is its leaf). */
function piEvidence(options: EvidenceOptions, root: string): TranscriptCollector<TranscriptEvidence> {
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
      const evidence = new EvidenceMessages('pi', options);
      const relative = (file: string): string => repoRelative(root, file, cwd);
      for (const entry of branch.reverse()) {
        const message = entry.type === 'message' ? asRecord(entry.message) : null;
        if (message) addMessage(evidence, message, relative);
      }
      return evidence.gathered();
    },
  };
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
