// The summary executor's view of a session (R10): the history as plain text that fits a token
// budget. What gives way first is the oldest tool output, then the oldest other messages; the
// definition messages (system prompt) and the user's last request always stay whole.
import { estimateTokens } from '../agent/estimate-tokens.js';
import type { AgentMessage } from '../session/session-recorder.js';
import { lastUserRequestIndex, messageText } from './transcript.js';

interface Entry {
  readonly protected: boolean;
  readonly isToolOutput: boolean;
  heading: string;
  body: string;
  /** 'whole' → 'shrunk' → 'dropped'. */
  state: 'whole' | 'shrunk' | 'dropped';
}

const SHRUNK_CHARS = 200;

function render(message: AgentMessage): { heading: string; body: string } {
  const { role } = message.message;
  const calls = (message.message.tool_calls ?? []).map((call) => `→ ${call.function.name} ${call.function.arguments}`);
  const text = messageText(message.message);
  const heading = `[${role}${message.definition ? ', definition' : ''}${role === 'tool' && message.message.tool_call_id ? ` ${message.message.tool_call_id}` : ''}]`;
  return { heading, body: [text, ...calls].filter((part) => part.length > 0).join('\n') };
}

function shrink(body: string): string {
  if (body.length <= SHRUNK_CHARS) return body;
  return `${body.slice(0, SHRUNK_CHARS)} [… ${body.length - SHRUNK_CHARS} characters left out]`;
}

function entryText(entry: Entry): string {
  return entry.state === 'dropped' ? '' : `${entry.heading}\n${entry.body}\n`;
}

export interface SerialisedHistory {
  readonly text: string;
  readonly tokens: number;
  readonly shrunk: number;
  readonly dropped: number;
}

export function serialiseHistory(messages: readonly AgentMessage[], budgetTokens: number): SerialisedHistory {
  const lastRequest = lastUserRequestIndex(messages);
  const entries: Entry[] = messages.map((message, index) => ({
    protected: message.definition === true || index === lastRequest,
    isToolOutput: message.message.role === 'tool',
    ...render(message),
    state: 'whole',
  }));

  let tokens = entries.reduce((sum, entry) => sum + estimateTokens(entryText(entry)), 0);
  const fits = () => tokens <= budgetTokens;
  const apply = (entry: Entry, change: () => void) => {
    tokens -= estimateTokens(entryText(entry));
    change();
    tokens += estimateTokens(entryText(entry));
  };

  // Oldest tool outputs shrink first, then the oldest other messages, then the oldest are dropped.
  for (const entry of entries) {
    if (fits()) break;
    if (!entry.protected && entry.isToolOutput && entry.body.length > SHRUNK_CHARS)
      apply(entry, () => {
        entry.body = shrink(entry.body);
        entry.state = 'shrunk';
      });
  }
  for (const entry of entries) {
    if (fits()) break;
    if (!entry.protected && entry.state === 'whole' && entry.body.length > SHRUNK_CHARS)
      apply(entry, () => {
        entry.body = shrink(entry.body);
        entry.state = 'shrunk';
      });
  }
  for (const entry of entries) {
    if (fits()) break;
    if (!entry.protected) apply(entry, () => (entry.state = 'dropped'));
  }

  const dropped = entries.filter((entry) => entry.state === 'dropped').length;
  const shrunk = entries.filter((entry) => entry.state === 'shrunk').length;
  const parts: string[] = [];
  let droppedRun = 0;
  for (const entry of entries) {
    if (entry.state === 'dropped') {
      droppedRun += 1;
      continue;
    }
    if (droppedRun > 0) parts.push(`[… ${droppedRun} earlier messages left out to fit the window]\n`);
    droppedRun = 0;
    parts.push(entryText(entry));
  }
  if (droppedRun > 0) parts.push(`[… ${droppedRun} messages left out to fit the window]\n`);
  const text = parts.join('\n');
  return { text, tokens: estimateTokens(text), shrunk, dropped };
}
