// Big sessions of pi, Gemini CLI and Cline, written as a stream (never held whole) in the shapes the
// pinned clients write, with the mix of big-transcript-fixture.ts: a request every 40 turns, each turn
// a command (distinct) with its output, a read and an edit. pi's session is a tree (a turn now and then
// left behind by `/tree`); Gemini's writes each reply again under its id once its calls have results;
// Cline's is one document, pretty-printed as Cline rewrites it.
import { type GeneratedTranscript, output, REQUEST_EVERY, request, type Shape, writeTurns } from './big-transcript-fixture.js';

/** pi: every this many turns, the next turn goes on from the turn before the last (`/tree`): the last is left behind. */
const BRANCH_EVERY = 1_000;

/** A pi session (0.73): the header, then each entry naming its parent; the last entry written is the leaf. */
export async function writePiSession(file: string, shape: Shape): Promise<GeneratedTranscript> {
  const size = shape.outputBytes ?? 12_000;
  const at = new Date().toISOString();
  let entries = 0;
  let parent: string | null = null;
  let turnStart: string | null = null;
  let previousTurnStart: string | null = null;
  const usage = {
    input: 20_000,
    output: 20,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 20_020,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
  const entry = (message: object): string => {
    const id = (entries++).toString(16).padStart(8, '0');
    const line = JSON.stringify({ type: 'message', id, parentId: parent, timestamp: at, message });
    parent = id;
    return line;
  };
  const assistant = (content: object[]) =>
    entry({
      role: 'assistant',
      content,
      api: 'anthropic-messages',
      provider: 'anthropic',
      model: 'claude-opus-4-7',
      usage,
      stopReason: 'toolUse',
      timestamp: 1,
    });
  const result = (id: string, toolName: string, text: string, isError: boolean) =>
    entry({ role: 'toolResult', toolCallId: id, toolName, content: [{ type: 'text', text }], isError, timestamp: 1 });
  return writeTurns(
    file,
    (turn) => {
      const lines: string[] = [];
      if (turn === 0) lines.push(JSON.stringify({ type: 'session', version: 3, id: shape.sessionId, timestamp: at, cwd: shape.root }));
      if (turn > 0 && turn % BRANCH_EVERY === 0) parent = previousTurnStart;
      previousTurnStart = turnStart;
      turnStart = parent;
      if (turn % REQUEST_EVERY === 0) lines.push(entry({ role: 'user', content: [{ type: 'text', text: request(turn) }], timestamp: 1 }));
      const failed = turn % 7 === 0;
      const module = `${shape.root}/src/module-${turn % 300}.ts`;
      lines.push(
        assistant([
          { type: 'text', text: `Running the check for case ${turn}.` },
          { type: 'toolCall', id: `toolu_b${turn}`, name: 'bash', arguments: { command: `npm test -- --grep "case ${turn}"` } },
        ]),
        result(`toolu_b${turn}`, 'bash', `${output(turn, size)}${failed ? '\n\nCommand exited with code 1' : ''}`, failed),
        assistant([{ type: 'toolCall', id: `toolu_r${turn}`, name: 'read', arguments: { path: module } }]),
        result(`toolu_r${turn}`, 'read', output(turn, size / 2), false),
        assistant([{ type: 'toolCall', id: `toolu_e${turn}`, name: 'edit', arguments: { path: module, oldText: 'a', newText: 'b' } }]),
        result(`toolu_e${turn}`, 'edit', `Successfully replaced text in ${module}.`, false),
      );
      return lines;
    },
    shape.bytes,
  );
}

/** A Gemini CLI session (0.61, JSONL): the metadata, the client's context, then each reply written once and again with its calls' results. */
export async function writeGeminiSession(file: string, shape: Shape): Promise<GeneratedTranscript> {
  const size = shape.outputBytes ?? 12_000;
  const at = new Date().toISOString();
  const uuid = (kind: number, turn: number) =>
    `${turn.toString(16).padStart(8, '0')}-0000-4000-8000-${kind.toString(16).padStart(12, '0')}`;
  const reply = (turn: number, toolCalls: object[]) =>
    JSON.stringify({
      id: uuid(2, turn),
      timestamp: at,
      type: 'gemini',
      content: `Running the check for case ${turn}.`,
      thoughts: [],
      tokens: { input: 20_000, output: 20, cached: 0, thoughts: 0, tool: 0, total: 20_020 },
      model: 'gemini-3.8-flash',
      toolCalls,
    });
  const call = (id: string, name: string, args: object, response?: object) => ({
    id,
    name,
    args,
    ...(response ? { result: [{ functionResponse: { id, name, response } }], status: 'success' } : { status: 'executing' }),
  });
  return writeTurns(
    file,
    (turn) => {
      const lines: string[] = [];
      if (turn === 0) {
        lines.push(
          JSON.stringify({ sessionId: shape.sessionId, projectHash: 'b0db30', startTime: at, lastUpdated: at, kind: 'main' }),
          JSON.stringify({
            $set: {
              messages: [
                {
                  id: uuid(0, 0),
                  timestamp: at,
                  type: 'user',
                  content: [{ text: '<session_context>\nThis is the Gemini CLI.\n</session_context>' }],
                },
              ],
            },
          }),
        );
      }
      if (turn % REQUEST_EVERY === 0)
        lines.push(JSON.stringify({ id: uuid(1, turn), timestamp: at, type: 'user', content: [{ text: request(turn) }] }));
      const module = `${shape.root}/src/module-${turn % 300}.ts`;
      const command = `npm test -- --grep "case ${turn}"`;
      const calls = [
        ['run_shell_command', { command }, { output: `${output(turn, size)}${turn % 7 === 0 ? '\nExit Code: 1' : ''}` }],
        ['read_file', { file_path: module }, { output: output(turn, size / 2) }],
        ['replace', { file_path: module, old_string: 'a', new_string: 'b' }, { output: `Successfully modified file: ${module}` }],
      ] as const;
      lines.push(
        reply(
          turn,
          calls.map(([name, args], index) => call(`${name}_${turn}_${index}`, name, args)),
        ),
        reply(
          turn,
          calls.map(([name, args, response], index) => call(`${name}_${turn}_${index}`, name, args, response)),
        ),
      );
      return lines;
    },
    shape.bytes,
  );
}

/** A Cline conversation (3.0.65's `<id>.messages.json`): one document as `JSON.stringify(…, null, 2)` writes it. */
export async function writeClineConversation(file: string, shape: Shape): Promise<GeneratedTranscript> {
  const size = shape.outputBytes ?? 12_000;
  const metrics = { inputTokens: 20_000, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 };
  // A message as the document holds it: at its depth in `"messages"`, a comma after it.
  const message = (value: object) => `${JSON.stringify(value, null, 2).replace(/^/gm, '    ')},`;
  const assistant = (id: string, content: object[]) =>
    message({ id, role: 'assistant', content, ts: 1, modelInfo: { id: 'gpt-4.1', provider: 'openai-compatible' }, metrics });
  const result = (id: string, name: string, content: unknown) =>
    message({ id: `r_${id}`, role: 'user', content: [{ type: 'tool_result', tool_use_id: id, name, content }], ts: 1 });
  const head = JSON.stringify({ version: 1, updated_at: new Date().toISOString(), agent: 'lead', sessionId: shape.sessionId }, null, 2);
  return writeTurns(
    file,
    (turn) => {
      const lines: string[] = [];
      if (turn === 0) lines.push(`${head.slice(0, -2)},`, '  "messages": [');
      if (turn % REQUEST_EVERY === 0)
        lines.push(
          message({
            id: `u${turn}`,
            role: 'user',
            content: [{ type: 'text', text: `<user_input mode="act">${request(turn)}</user_input>` }],
            ts: 1,
          }),
        );
      const command = `npm test -- --grep "case ${turn}"`;
      const module = `src/module-${turn % 300}.ts`;
      lines.push(
        assistant(`m${turn}`, [{ type: 'tool_use', id: `call_b${turn}`, name: 'run_commands', input: { commands: [command] } }]),
        result(`call_b${turn}`, 'run_commands', [{ query: command, result: output(turn, size), success: turn % 7 !== 0 }]),
        assistant(`e${turn}`, [
          {
            type: 'tool_use',
            id: `call_e${turn}`,
            name: 'editor',
            input: { command: 'str_replace', path: module, old_str: 'a', new_str: 'b' },
          },
        ]),
        result(`call_e${turn}`, 'editor', '{"query":"editor","result":"ok","success":true}'),
      );
      return lines;
    },
    shape.bytes,
    // The last message has no comma after it; then the document closes.
    [
      message({ id: 'last', role: 'assistant', content: [{ type: 'text', text: 'All checks ran.' }], ts: 1, metrics }).slice(0, -1),
      '  ],',
      '  "system_prompt": "You are Cline."',
      '}',
    ],
  );
}
