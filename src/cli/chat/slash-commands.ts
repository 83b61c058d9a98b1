// The chat's slash commands (R16–R18): what a line means, before anything runs.
import type { ExecutorName } from '../../session/format.js';

export type SlashCommand =
  | { readonly kind: 'handoff'; readonly executor: ExecutorName | null }
  | { readonly kind: 'migrate'; readonly executor: ExecutorName | null }
  | { readonly kind: 'status' }
  | { readonly kind: 'help' }
  | { readonly kind: 'exit' }
  | { readonly kind: 'invalid'; readonly message: string };

export type ChatInput = { readonly kind: 'message'; readonly text: string } | { readonly kind: 'empty' } | SlashCommand;

export interface CommandHelp {
  readonly usage: string;
  readonly does: string;
}

export const COMMAND_HELP: readonly CommandHelp[] = [
  { usage: '/handoff [summary|self|offline]', does: 'write a handoff document; the session goes on (ask the agent to refine it afterwards)' },
  { usage: '/migrate [self|summary|offline]', does: 'hand off, then continue in a new session that starts from the document (asks first; alias /migration)' },
  { usage: '/status', does: 'context usage, session id, model and the last handoff' },
  { usage: '/help', does: 'this list' },
  { usage: '/exit', does: 'leave (also Ctrl-D, or Ctrl-C twice at an empty prompt)' },
];

const EXECUTORS: readonly ExecutorName[] = ['self', 'summary', 'offline'];

function executorArgument(command: string, words: readonly string[]): { executor: ExecutorName | null } | { message: string } {
  if (words.length === 0) return { executor: null };
  const [word, ...rest] = words;
  if (rest.length === 0 && EXECUTORS.includes(word as ExecutorName)) return { executor: word as ExecutorName };
  return { message: `${command} takes one of ${EXECUTORS.join(', ')} (got "${words.join(' ')}")` };
}

/** A line that starts with `/` and a word is a command; anything else goes to the agent. */
export function parseChatInput(line: string): ChatInput {
  const text = line.trim();
  if (text === '') return { kind: 'empty' };
  const match = /^\/([a-z-]+)(?:\s+(.*))?$/is.exec(text);
  if (!match) return { kind: 'message', text: line };
  const name = match[1]!.toLowerCase();
  const words = (match[2] ?? '').split(/\s+/).filter((word) => word !== '');
  switch (name) {
    case 'handoff':
    case 'migrate':
    case 'migration': {
      const kind = name === 'handoff' ? 'handoff' : 'migrate';
      const argument = executorArgument(`/${name}`, words);
      return 'message' in argument ? { kind: 'invalid', message: argument.message } : { kind, executor: argument.executor };
    }
    case 'status':
    case 'help':
      return words.length === 0 ? { kind: name } : { kind: 'invalid', message: `/${name} takes no arguments` };
    case 'exit':
    case 'quit':
      return { kind: 'exit' };
    default:
      return { kind: 'invalid', message: `unknown command /${name} — /help lists the commands` };
  }
}
