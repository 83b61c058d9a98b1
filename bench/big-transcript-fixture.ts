// Big transcripts of Claude Code and Codex, written as a stream (never held whole): the shapes the
// clients write, with a long session's mix — requests now and then, many commands (most of them
// distinct), file reads and edits, and tool outputs that make up most of the bytes.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/** What a generated transcript holds, for the reader of a benchmark's results. */
export interface GeneratedTranscript {
  readonly bytes: number;
  readonly lines: number;
  readonly requests: number;
  readonly commands: number;
}

export interface Shape {
  readonly root: string;
  readonly sessionId: string;
  readonly bytes: number;
  /** Each tool output is about this long. */
  readonly outputBytes?: number;
}

export const REQUEST_EVERY = 40;

/**
 * Writes each turn's lines until `bytes` are written: every turn runs one command, every REQUEST_EVERY-th starts with a request;
 * then `ending` (what closes a document written as one).
 */
export async function writeTurns(
  file: string,
  lines: (turn: number) => string[],
  bytes: number,
  ending: readonly string[] = [],
): Promise<GeneratedTranscript> {
  const out = createWriteStream(file);
  let written = 0;
  let count = 0;
  let turn = 0;
  for (; written < bytes; turn += 1) {
    for (const line of lines(turn)) {
      const text = `${line}\n`;
      written += Buffer.byteLength(text);
      count += 1;
      if (!out.write(text)) await once(out, 'drain');
    }
  }
  for (const line of ending) out.write(`${line}\n`);
  out.end();
  await once(out, 'finish');
  return { bytes: written, lines: count, requests: Math.ceil(turn / REQUEST_EVERY), commands: turn };
}

export const output = (turn: number, size: number) => {
  const row = `line of output ${turn} for the build step, nothing secret here at all\n`;
  return row.repeat(Math.max(1, Math.ceil(size / row.length)));
};
export const request = (turn: number) =>
  `Step ${turn}: fix the failing case in src/module-${turn % 300}.ts and keep the public API as it is; never touch the lock file.`;

/** A Claude Code transcript: a request every 40 turns, each turn a command (distinct), its output, a read and an edit. */
export async function writeClaudeTranscript(file: string, shape: Shape): Promise<GeneratedTranscript> {
  const size = shape.outputBytes ?? 12_000;
  const base = { parentUuid: null, isSidechain: false, cwd: shape.root, sessionId: shape.sessionId, version: '2.1.332' };
  const at = new Date().toISOString();
  const assistant = (turn: number, n: number, content: object[]) =>
    JSON.stringify({
      ...base,
      type: 'assistant',
      timestamp: at,
      message: {
        id: `msg_${turn}_${n}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content,
        usage: { input_tokens: 20_000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 20 },
      },
    });
  const result = (id: string, text: string, isError: boolean) =>
    JSON.stringify({
      ...base,
      type: 'user',
      timestamp: at,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text, is_error: isError }] },
    });
  return writeTurns(
    file,
    (turn) => {
      const lines: string[] = [];
      if (turn % REQUEST_EVERY === 0) {
        lines.push(JSON.stringify({ ...base, type: 'user', timestamp: at, message: { role: 'user', content: request(turn) } }));
      }
      const failed = turn % 7 === 0;
      lines.push(
        assistant(turn, 1, [
          { type: 'text', text: `Running the check for case ${turn}.` },
          { type: 'tool_use', id: `toolu_b${turn}`, name: 'Bash', input: { command: `npm test -- --grep "case ${turn}"` } },
        ]),
        result(`toolu_b${turn}`, `${failed ? 'Exit code 1\n' : ''}${output(turn, size)}`, failed),
        assistant(turn, 2, [
          { type: 'tool_use', id: `toolu_r${turn}`, name: 'Read', input: { file_path: `${shape.root}/src/module-${turn % 300}.ts` } },
        ]),
        result(`toolu_r${turn}`, output(turn, size / 2), false),
        assistant(turn, 3, [
          {
            type: 'tool_use',
            id: `toolu_e${turn}`,
            name: 'Edit',
            input: { file_path: `${shape.root}/src/module-${turn % 300}.ts`, old_string: 'a', new_string: 'b' },
          },
        ]),
        result(`toolu_e${turn}`, 'The file has been updated.', false),
      );
      return lines;
    },
    shape.bytes,
  );
}

/** A Codex rollout (0.171's items): session_meta, then per turn a command with its output item and events, and an edit. */
export async function writeCodexRollout(file: string, shape: Shape): Promise<GeneratedTranscript> {
  const size = shape.outputBytes ?? 12_000;
  const at = new Date().toISOString();
  const line = (type: string, payload: object) => JSON.stringify({ timestamp: at, type, payload });
  return writeTurns(
    file,
    (turn) => {
      const lines: string[] = [];
      if (turn === 0)
        lines.push(
          line('session_meta', { id: shape.sessionId, cwd: shape.root, timestamp: at, base_instructions: { text: 'x'.repeat(20_000) } }),
        );
      if (turn % REQUEST_EVERY === 0) {
        lines.push(
          line('event_msg', { type: 'item_completed', item: { type: 'UserMessage', content: [{ type: 'text', text: request(turn) }] } }),
        );
      }
      const command = ['bash', '-lc', `npm test -- --grep "case ${turn}"`];
      const out = output(turn, size);
      lines.push(
        line('response_item', { type: 'function_call_output', call_id: `call_${turn}`, output: out }),
        line('event_msg', {
          type: 'exec_command_end',
          call_id: `call_${turn}`,
          command,
          exit_code: turn % 7 === 0 ? 1 : 0,
          aggregated_output: out,
        }),
        line('event_msg', {
          type: 'item_completed',
          item: { type: 'FileChange', status: 'completed', changes: { [`${shape.root}/src/module-${turn % 300}.ts`]: { type: 'update' } } },
        }),
        line('event_msg', {
          type: 'item_completed',
          item: { type: 'AgentMessage', content: [{ type: 'text', text: `Case ${turn} checked.` }] },
        }),
        line('event_msg', {
          type: 'token_count',
          info: {
            last_token_usage: { input_tokens: 20_000, cached_input_tokens: 0, output_tokens: 20, total_tokens: 20_020 },
            model_context_window: 400_000,
          },
        }),
      );
      return lines;
    },
    shape.bytes,
  );
}
