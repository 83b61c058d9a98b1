// What the agent records into a session, defined here so that session/ depends on nothing above
// it (the agent implements against these; the conversation context provides them).
import type { ChatMessage, Usage } from './format.js';

/** A message held by the agent, with whether it is a definition message (kept by prune, R24). */
export interface AgentMessage {
  readonly message: ChatMessage;
  readonly definition?: boolean;
}

/**
 * Where the agent records what happens. The conversation context implements it and is the one
 * owner of the current session id (R27): the agent never knows which file it writes to.
 */
export interface SessionRecorder {
  readonly currentId: string;
  appendMessage(message: ChatMessage, options?: { definition?: boolean }): Promise<void>;
  appendUsage(usage: Usage): Promise<void>;
}
