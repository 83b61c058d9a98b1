// The contracts between the agent runtime, its tools and its plugins.
import type { z } from 'zod';
import type { ChatMessage, Usage } from '../session/format.js';
import type { AgentMessage } from '../session/session-recorder.js';

/** What a tool returns: what the model reads, and one compact line for the person. */
export interface ToolResult {
  readonly forModel: string;
  readonly forUser: string;
  readonly isError: boolean;
}

export interface ToolContext {
  /** The project root, real path. Every path a tool touches is confined to it. */
  readonly root: string;
  readonly signal?: AbortSignal;
}

export interface Tool<Schema extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  /** zod schema of the arguments; converted to JSON schema for the model. */
  readonly schema: Schema;
  run(args: z.infer<Schema>, context: ToolContext): Promise<ToolResult>;
}

/** The read-only view of an agent that plugins and executors get. */
export interface AgentView {
  readonly messages: readonly AgentMessage[];
  readonly lastUsage: Usage | null;
  readonly maxContextTokens: number;
  readonly sessionId: string;
  /**
   * How many of `messages` the prompt measured by `lastUsage` held (the messages after them are
   * new since). Lets ContextGuard estimate the next prompt (R14). Added by the agent helper.
   */
  readonly measuredMessageCount?: number;
}

export interface ToolCallRequest {
  readonly id: string;
  readonly name: string;
  /** Parsed and schema-checked arguments. */
  readonly args: unknown;
}

/** A plugin says no by returning a reason; it never throws to refuse. */
export type Verdict = { readonly refuse: string } | undefined;

export interface Plugin {
  readonly name: string;
  /** Before each model request; a refusal stops the turn with an AiZenError('context-guard'). */
  beforeRequest?(request: { messages: readonly ChatMessage[]; agent: AgentView }): Verdict | Promise<Verdict>;
  /** Before a tool runs; a refusal is soft: the reason goes back to the model as the tool result (R12). */
  beforeToolCall?(call: ToolCallRequest, agent: AgentView): Verdict | Promise<Verdict>;
  afterToolCall?(call: ToolCallRequest, result: ToolResult, agent: AgentView): void | Promise<void>;
  /** After each model response, with its usage (R19). */
  afterResponse?(response: { message: ChatMessage; usage: Usage | null }, agent: AgentView): void | Promise<void>;
}

/** What the person sees while a turn runs (the terminal UI renders it; `-p` ignores it). */
export interface TurnObserver {
  onTextDelta?(delta: string): void;
  onToolCall?(call: ToolCallRequest): void;
  onToolResult?(call: ToolCallRequest, result: ToolResult): void;
}
