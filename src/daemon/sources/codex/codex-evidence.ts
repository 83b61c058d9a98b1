// A Codex rollout as ai-zen messages, for the offline and summary executors (X3): the user's own
// words (`UserMessage` items, never the harness's `<environment_context>` or tool output), the
// assistant's text, each command as an `exec` call whose result ends in `[exit code N]`, and each
// file apply_patch changed as a `write` / `edit` / `rm` / `rename` call (paths relative to the
// repo). The rollout is read once, start to end, and never written.
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { AgentMessage } from '../../../session/session-recorder.js';
import type { ChatMessage } from '../../../session/format.js';
import { rolloutLineType } from './codex-rollout.js';

/** Line types that carry nothing for the document (and are most of a rollout's bytes). */
const WANTED_TYPES = new Set(['event_msg']);

export async function readCodexEvidence(file: string, root: string): Promise<AgentMessage[]> {
  const messages: AgentMessage[] = [];
  let callCounter = 0;
  const callId = () => `codex_call_${++callCounter}`;
  const relative = (file: string) => {
    const inside = path.relative(root, file);
    return inside !== '' && !inside.startsWith('..') && !path.isAbsolute(inside) ? inside : file;
  };
  const toolCall = (name: string, args: Record<string, unknown>, result: string) => {
    const id = callId();
    messages.push({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
      },
    });
    messages.push({ message: { role: 'tool', tool_call_id: id, content: result } });
  };
  const text = (role: 'user' | 'assistant', content: string) => {
    if (content.trim() !== '') messages.push({ message: { role, content } satisfies ChatMessage });
  };
  const fileChanges = (changes: unknown, failed: boolean) => {
    const record = asRecord(changes);
    if (!record) return;
    for (const [changed, change] of Object.entries(record)) {
      const kind = asRecord(change)?.type;
      const movedTo = asRecord(change)?.move_path;
      const result = failed ? 'error: the patch did not apply' : 'ok';
      if (typeof movedTo === 'string') toolCall('rename', { from: relative(changed), to: relative(movedTo) }, result);
      else toolCall(kind === 'add' ? 'write' : kind === 'delete' ? 'rm' : 'edit', { path: relative(changed) }, result);
    }
  };
  const command = (argv: unknown, exitCode: unknown) => {
    const commandText = commandOf(argv);
    if (commandText === null) return;
    toolCall('exec', { command: commandText }, typeof exitCode === 'number' ? `[exit code ${exitCode}]` : '[killed or still running]');
  };

  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    const type = rolloutLineType(line);
    if (type !== null && !WANTED_TYPES.has(type)) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    const payload = asRecord(asRecord(parsed)?.payload);
    if (asRecord(parsed)?.type !== 'event_msg' || !payload) continue;
    switch (payload.type) {
      case 'item_completed': {
        const item = asRecord(payload.item);
        if (item?.type === 'UserMessage') text('user', contentText(item.content));
        else if (item?.type === 'AgentMessage') text('assistant', contentText(item.content));
        else if (item?.type === 'CommandExecution') command(item.command, item.exit_code);
        else if (item?.type === 'FileChange' && item.status !== 'declined') fileChanges(item.changes, item.status === 'failed');
        break;
      }
      // What older clients wrote instead of items.
      case 'user_message':
        if (typeof payload.message === 'string') text('user', payload.message);
        break;
      case 'agent_message':
        if (typeof payload.message === 'string') text('assistant', payload.message);
        break;
      case 'exec_command_end':
        command(payload.command, payload.exit_code);
        break;
      case 'patch_apply_end':
        fileChanges(payload.changes, payload.success === false);
        break;
    }
  }
  return messages;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => asRecord(part)?.text)
    .filter((value): value is string => typeof value === 'string')
    .join('\n');
}

function commandOf(argv: unknown): string | null {
  if (typeof argv === 'string') return argv;
  if (!Array.isArray(argv) || !argv.every((part) => typeof part === 'string')) return null;
  const parts = argv as string[];
  if (parts.length === 3 && /(^|\/)(ba|z|)sh$/.test(parts[0]!) && /^-l?c$/.test(parts[1]!)) return parts[2]!;
  return parts.join(' ');
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
