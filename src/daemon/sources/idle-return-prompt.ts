// The person is back at a session the daemon handed off while it sat idle: their next prompt
// (UserPromptSubmit) shows them the choice once per idle stretch — the document, `/clear` to
// continue fresh from it, and what resuming this session re-writes — while the prompt itself goes on
// (Claude Code shows a hook's `systemMessage` to the person; `additionalContext` tells the model).
// Never in a script: only a process the agent's registry names a terminal's is told.
import { idleReturnWords } from '../handoffs/idle-return.js';
import type { ForeignSessionsRunner } from '../handoffs/foreign-sessions.js';
import type { SessionSource } from '../watching/session-source.js';
import type { WatchedSessions } from '../watching/transcript-watchers.js';

export interface IdleReturnDeps {
  readonly watcher: Pick<WatchedSessions, 'state'>;
  readonly foreign: Pick<ForeignSessionsRunner, 'idleOf' | 'takeIdleReturn'>;
  readonly source: SessionSource;
  /** Whether the agent process is a person's terminal, not a script; absent: the agent cannot say, so never told. */
  readonly inTerminal?: (agentPid: number) => Promise<boolean>;
}

export async function idleReturnPrompt(
  request: { readonly scripted?: boolean; readonly agentPid?: number },
  file: string,
  deps: IdleReturnDeps,
): Promise<Record<string, unknown> | null> {
  if (request.scripted || request.agentPid === undefined || !deps.inTerminal) return null;
  const state = deps.watcher.state(file);
  if (!state || state.otherRepo || state.scripted) return null;
  if (deps.foreign.idleOf(file)?.choice == null) return null;
  // Asked before the choice is taken: a script's prompt must not use up the stretch's one telling.
  if (!(await deps.inTerminal(request.agentPid).catch(() => false))) return null;
  const choice = deps.foreign.takeIdleReturn(file);
  if (!choice) return null;
  const words = idleReturnWords(choice, deps.source.handoff?.freshSessionCommand ?? '/clear');
  return {
    systemMessage: `ai-zen: ${words}`,
    hookSpecificOutput: {
      hookEventName: 'UserPromptSubmit',
      additionalContext: `ai-zen: while the user was away this session was ${words}. The user has been shown this choice; answer their prompt as usual.`,
    },
  };
}
