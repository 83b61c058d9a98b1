// A Copilot CLI transcript as ai-zen messages, for the offline and summary executors (X3): the
// user's own words (`user.message` content, never the harness's transformed prompt), the assistant's
// text, each shell command as an `exec` call whose result ends in `[exit code N]`, and each file its
// edit tools changed as a `write` / `edit` / `rm` call (paths relative to the repo). Subagents'
// events are left out (their work reaches the main conversation as the task tool's result). The
// transcript is read once, start to end, and never written.
import type { EvidenceOptions, TranscriptEvidence } from '../../watching/session-source.js';
import { EvidenceMessages, repoRelative } from '../kit/evidence.js';
import { asRecord, parseRecord } from '../kit/json-record.js';
import { transcriptLines } from '../kit/transcript-lines.js';
import { eventTypeOf } from './copilot-events.js';

const WANTED = new Set(['user.message', 'assistant.message', 'tool.execution_start', 'tool.execution_complete']);
const SHELL_TOOLS = new Set(['bash', 'powershell', 'shell']);
/** File tools by name, and what ai-zen calls the change (`str_replace_editor`'s command decides for it). */
const FILE_TOOLS: Readonly<Record<string, 'write' | 'edit'>> = {
  create: 'write',
  write: 'write',
  edit: 'edit',
  str_replace: 'edit',
  insert: 'edit',
};

export async function readCopilotEvidence(file: string, root: string, options: EvidenceOptions = {}): Promise<TranscriptEvidence> {
  const evidence = new EvidenceMessages('copilot', options);
  const started = new Map<string, { name: string; args: Record<string, unknown> }>();
  const completed = (call: { name: string; args: Record<string, unknown> }, data: Record<string, unknown>) => {
    const ok = data.success === true;
    if (SHELL_TOOLS.has(call.name)) {
      const command = call.args.command;
      if (typeof command !== 'string') return;
      const exitCode = asRecord(data.shellExecution)?.exitCode ?? asRecord(asRecord(data.toolTelemetry)?.metrics)?.exit_code;
      evidence.call('exec', { command }, typeof exitCode === 'number' ? `[exit code ${exitCode}]` : ok ? '[exit code 0]' : '[failed]');
      return;
    }
    const result = ok ? 'ok' : 'error: the edit did not apply';
    for (const change of fileChanges(call)) evidence.call(change.kind, { path: repoRelative(root, change.path) }, result);
  };

  for await (const line of transcriptLines(file, { ...options, done: () => evidence.done() })) {
    const type = eventTypeOf(line);
    if (type === null || !WANTED.has(type)) continue;
    const event = parseRecord(line);
    if (!event || typeof event.agentId === 'string') continue;
    const data = asRecord(event.data) ?? {};
    switch (type) {
      case 'user.message':
        evidence.text('user', data.content);
        break;
      case 'assistant.message':
        evidence.text('assistant', data.content);
        break;
      case 'tool.execution_start':
        if (typeof data.toolCallId === 'string' && typeof data.toolName === 'string')
          started.set(data.toolCallId, { name: data.toolName, args: asRecord(data.arguments) ?? { input: data.arguments } });
        break;
      case 'tool.execution_complete': {
        const call = typeof data.toolCallId === 'string' ? started.get(data.toolCallId) : undefined;
        // A call is held only until it completes: a long session's calls (a created file's whole text among their arguments) are not all kept.
        if (typeof data.toolCallId === 'string') started.delete(data.toolCallId);
        if (call) completed(call, data);
        break;
      }
    }
  }
  return evidence.gathered();
}

/** The files one edit tool call names: its `path`, or each file of an apply_patch patch. */
function fileChanges(call: { name: string; args: Record<string, unknown> }): { kind: 'write' | 'edit' | 'rm'; path: string }[] {
  const patch = typeof call.args.input === 'string' ? call.args.input : typeof call.args.patch === 'string' ? call.args.patch : null;
  if (call.name === 'apply_patch' && patch !== null) {
    const changes: { kind: 'write' | 'edit' | 'rm'; path: string }[] = [];
    for (const match of patch.matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$/gm)) {
      changes.push({ kind: match[1] === 'Add' ? 'write' : match[1] === 'Delete' ? 'rm' : 'edit', path: match[2]!.trim() });
    }
    return changes;
  }
  const target = call.args.path;
  if (typeof target !== 'string') return [];
  if (call.name === 'str_replace_editor') {
    const command = call.args.command;
    if (command === 'create') return [{ kind: 'write', path: target }];
    return command === 'str_replace' || command === 'insert' ? [{ kind: 'edit', path: target }] : [];
  }
  const kind = FILE_TOOLS[call.name];
  return kind ? [{ kind, path: target }] : [];
}
