// A Codex rollout as ai-zen messages, for the offline and summary executors (X3): the user's own
// words (`UserMessage` items, never the harness's `<environment_context>` or tool output), the
// assistant's text, each command as an `exec` call whose result ends in `[exit code N]`, and each
// file apply_patch changed as a `write` / `edit` / `rm` / `rename` call (paths relative to the
// repo). The rollout is read once, start to end, and never written. The client (0.171) writes
// `item_completed` items: UserMessage, AgentMessage, CommandExecution (`command`, `exit_code`),
// FileChange (`changes`: path → change, a rename's `move_path`); older clients wrote the events
// `user_message`, `agent_message`, `exec_command_end`, `patch_apply_end` instead: both are read.
import type { EvidenceOptions, TranscriptEvidence } from '../../watching/session-source.js';
import { contentText, EvidenceMessages, repoRelative } from '../kit/evidence.js';
import { asRecord, parseRecord } from '../kit/json-record.js';
import { transcriptLines } from '../kit/transcript-lines.js';
import { rolloutLineType } from './codex-rollout.js';

export async function readCodexEvidence(file: string, root: string, options: EvidenceOptions = {}): Promise<TranscriptEvidence> {
  const evidence = new EvidenceMessages('codex', options);
  const fileChanges = (changes: unknown, failed: boolean) => {
    const record = asRecord(changes);
    if (!record) return;
    for (const [changed, change] of Object.entries(record)) {
      const { type: kind, move_path: movedTo } = asRecord(change) ?? {};
      const result = failed ? 'error: the patch did not apply' : 'ok';
      if (typeof movedTo === 'string')
        evidence.call('rename', { from: repoRelative(root, changed), to: repoRelative(root, movedTo) }, result);
      else evidence.call(kind === 'add' ? 'write' : kind === 'delete' ? 'rm' : 'edit', { path: repoRelative(root, changed) }, result);
    }
  };
  const command = (argv: unknown, exitCode: unknown) => {
    const commandText = commandOf(argv);
    if (commandText === null) return;
    evidence.call('exec', { command: commandText }, typeof exitCode === 'number' ? `[exit code ${exitCode}]` : '[killed or still running]');
  };

  for await (const line of transcriptLines(file, { ...options, done: () => evidence.done() })) {
    // Only events carry anything for the document; the other lines are most of a rollout's bytes.
    const type = rolloutLineType(line);
    if (type !== null && type !== 'event_msg') continue;
    const parsed = parseRecord(line);
    const payload = asRecord(parsed?.payload);
    if (parsed?.type !== 'event_msg' || !payload) continue;
    switch (payload.type) {
      case 'item_completed': {
        const item = asRecord(payload.item);
        if (item?.type === 'UserMessage') evidence.text('user', contentText(item.content));
        else if (item?.type === 'AgentMessage') evidence.text('assistant', contentText(item.content));
        else if (item?.type === 'CommandExecution') command(item.command, item.exit_code);
        else if (item?.type === 'FileChange' && item.status !== 'declined') fileChanges(item.changes, item.status === 'failed');
        break;
      }
      case 'user_message':
        evidence.text('user', payload.message);
        break;
      case 'agent_message':
        evidence.text('assistant', payload.message);
        break;
      case 'exec_command_end':
        command(payload.command, payload.exit_code);
        break;
      case 'patch_apply_end':
        fileChanges(payload.changes, payload.success === false);
        break;
    }
  }
  return evidence.gathered();
}

function commandOf(argv: unknown): string | null {
  if (typeof argv === 'string') return argv;
  if (!Array.isArray(argv) || !argv.every((part): part is string => typeof part === 'string')) return null;
  if (argv.length === 3 && /(^|\/)(ba|z|)sh$/.test(argv[0]!) && /^-l?c$/.test(argv[1]!)) return argv[2]!;
  return argv.join(' ');
}
