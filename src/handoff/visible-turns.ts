// The conversation read back as a person saw it — the user's requests and the agent's
// answers, with one line naming the tools each answer used — never the raw transcript (one Claude
// Code line can be tens of kilobytes). What `ai-zen-daemon transcript <id> --last N` prints, and
// what a handoff document's first steps may ask a successor to run: bounded to 16 KB in all.
import type { AgentMessage } from '../session/session-recorder.js';
import { isHandoffInstruction, messageText } from './transcript.js';

export interface VisibleTurn {
  readonly role: 'user' | 'assistant';
  readonly text: string;
}

/** The most a read-back prints, in UTF-8 bytes (the bound for any first step's output). */
export const MAX_READ_BACK_BYTES = 16 * 1024;
/** One turn is cut to this many characters: a long paste must not push every other turn out. */
export const MAX_TURN_CHARACTERS = 3000;
/** The turns `--last` gives when it is not said, and the most it gives. */
export const DEFAULT_LAST_TURNS = 20;
export const MAX_LAST_TURNS = 200;

/** The argument that says what a tool call was about, by ai-zen's tool names (other agents' are mapped to them). */
const TOOL_SUBJECT: Record<string, string> = {
  exec: 'command',
  write: 'path',
  edit: 'path',
  batch_edit: 'path',
  rm: 'path',
  mkdir: 'path',
  read: 'path',
};

function toolLine(message: AgentMessage['message']): string | null {
  const calls = message.tool_calls ?? [];
  if (calls.length === 0) return null;
  const named = calls.map((call) => {
    let subject = '';
    try {
      const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
      const key = TOOL_SUBJECT[call.function.name];
      const value = key ? args[key] : undefined;
      if (typeof value === 'string') subject = ` ${value.replace(/\s+/g, ' ').slice(0, 120)}`;
    } catch {
      // Arguments that are not JSON: the tool's name is enough.
    }
    return `${call.function.name}${subject}`;
  });
  return `[tools: ${named.join('; ')}]`;
}

function cut(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)} […${text.length - limit} more characters]` : text;
}

/** Every turn a person saw, in order: our own handoff instructions and their answers are left out. */
export function visibleTurns(messages: readonly AgentMessage[]): VisibleTurn[] {
  const turns: VisibleTurn[] = [];
  let inHandoffTurn = false;
  for (const entry of messages) {
    const message = entry.message;
    if (entry.definition) continue;
    if (message.role === 'user') {
      inHandoffTurn = isHandoffInstruction(message);
      const text = messageText(message).trim();
      if (!inHandoffTurn && text.length > 0) turns.push({ role: 'user', text: cut(text, MAX_TURN_CHARACTERS) });
      continue;
    }
    if (message.role !== 'assistant' || inHandoffTurn) continue;
    const text = [messageText(message).trim(), toolLine(message)].filter((part) => part !== null && part.length > 0).join('\n');
    if (text.length > 0) turns.push({ role: 'assistant', text: cut(text, MAX_TURN_CHARACTERS) });
  }
  return turns;
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** The last `last` turns, fewer when they would not fit in `budget` bytes (the newest are kept). */
export function lastTurns(turns: readonly VisibleTurn[], last: number, budget = MAX_READ_BACK_BYTES - 1024): VisibleTurn[] {
  const kept: VisibleTurn[] = [];
  let used = 0;
  for (let index = turns.length - 1; index >= 0 && kept.length < last; index -= 1) {
    const turn = turns[index]!;
    const size = bytes(turn.text) + 16;
    if (used + size > budget) break;
    kept.unshift(turn);
    used += size;
  }
  return kept;
}

/** The read-back as text, never over MAX_READ_BACK_BYTES. */
export function renderTurns(heading: string, turns: readonly VisibleTurn[], total: number): string {
  const left = total - turns.length;
  const lines = [heading, ...(left > 0 ? [`[${left} earlier turn${left === 1 ? '' : 's'} not shown]`] : [])];
  for (const turn of turns) lines.push('', `── ${turn.role}`, turn.text);
  let text = `${lines.join('\n')}\n`;
  if (bytes(text) > MAX_READ_BACK_BYTES) {
    const buffer = Buffer.from(text, 'utf8').subarray(0, MAX_READ_BACK_BYTES - 64);
    text = `${buffer.toString('utf8').replace(/\uFFFD$/, '')}\n[… cut at ${MAX_READ_BACK_BYTES} bytes]\n`;
  }
  return text;
}
