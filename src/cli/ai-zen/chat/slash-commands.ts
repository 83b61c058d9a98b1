// The chat's slash commands (R16–R18): what a line means, before anything runs.
import { ChosenExecutor } from '../../../session/format.js';

export type SlashCommand =
  | { readonly kind: 'handoff'; readonly executor: ChosenExecutor | null; readonly goal: string | null }
  | { readonly kind: 'migrate'; readonly executor: ChosenExecutor | null; readonly goal: string | null }
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
  {
    usage: '/handoff [summary|self|offline] [goal]',
    does: 'write a handoff document (towards the goal, if given); the session goes on (ask the agent to refine it afterwards)',
  },
  {
    usage: '/migrate [self|summary|offline] [goal]',
    does: 'hand off, review the document, then continue in a new session that starts from it (asks first; alias /migration)',
  },
  { usage: '/status', does: 'context usage, session id, model and the last handoff' },
  { usage: '/help', does: 'this list' },
  { usage: '/exit', does: 'leave (also Ctrl-D, or Ctrl-C twice at an empty prompt)' },
];

/** S1: an executor word first, if there is one; the rest of the line is the goal, as typed. */
function handoffArguments(rest: string): { executor: ChosenExecutor | null; goal: string | null } {
  const text = rest.trim();
  const [word = '', ...others] = text.split(/\s+/);
  const executor = ChosenExecutor.safeParse(word.toLowerCase());
  if (executor.success) {
    const goal = text.slice(word.length).trim();
    return { executor: executor.data, goal: goal === '' || others.length === 0 ? null : goal };
  }
  return { executor: null, goal: text === '' ? null : text };
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
      return { kind, ...handoffArguments(match[2] ?? '') };
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
