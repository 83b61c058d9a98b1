// The agent runtime: a tool loop over chat completions. It holds the conversation in memory and
// records every message and usage through the SessionRecorder the moment it happens, so a crash
// loses nothing already said; which file that lands in is the recorder's business (R27).
import type OpenAI from 'openai';
import { AiZenError } from '../errors.js';
import type { Logger } from 'pino';
import { silentLogger } from '../log/logger.js';
import type { ChatMessage, ToolCall, Usage } from '../session/format.js';
import { complete } from './model-client.js';
import { firstRefusal, notifyAll } from './plugins/run-plugins.js';
import { runToolCall } from './run-tool-call.js';
import type { AgentView, Plugin, Tool, ToolCallRequest, ToolResult, TurnObserver } from './types.js';
import type { AgentMessage, SessionRecorder } from '../session/session-recorder.js';

export const DEFAULT_MAX_STEPS = 50;

export interface AgentOptions {
  readonly client: OpenAI;
  readonly model: string;
  readonly maxContextTokens: number;
  /** Project root, real path. */
  readonly root: string;
  readonly tools: readonly Tool[];
  readonly recorder: SessionRecorder;
  /** The conversation so far (a resumed session); already recorded. */
  readonly messages?: readonly AgentMessage[];
  readonly lastUsage?: Usage | null;
  readonly plugins?: readonly Plugin[];
  readonly logger?: Logger;
  /** Model requests allowed in one turn before it stops. */
  readonly maxSteps?: number;
}

export interface SendOptions {
  readonly signal?: AbortSignal;
  readonly observer?: TurnObserver;
}

export interface TurnResult {
  /** The final answer's text. */
  readonly text: string;
  /** Usage of the turn's last response. */
  readonly usage: Usage | null;
  /** Model requests made in this turn. */
  readonly requests: number;
  /** Sums over the turn's requests (R30: what a handoff turn cost). */
  readonly promptTokens: number;
  readonly completionTokens: number;
}

export class Agent implements AgentView {
  readonly client: OpenAI;
  readonly model: string;
  readonly maxContextTokens: number;
  readonly root: string;
  private toolList: Tool[];
  private readonly recorder: SessionRecorder;
  private readonly logger: Logger;
  private readonly maxSteps: number;
  private history: AgentMessage[];
  private usage: Usage | null;
  private measured: number;
  private plugins: Plugin[];
  private controller: AbortController | null = null;

  constructor(options: AgentOptions) {
    this.client = options.client;
    this.model = options.model;
    this.maxContextTokens = options.maxContextTokens;
    this.root = options.root;
    this.toolList = [...options.tools];
    this.recorder = options.recorder;
    this.logger = options.logger ?? silentLogger();
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.history = [...(options.messages ?? [])];
    this.usage = options.lastUsage ?? null;
    this.measured = measuredBeforeLastReply(this.history);
    this.plugins = [...(options.plugins ?? [])];
  }

  /** The conversation, definition messages flagged. Change it through `replaceHistory`. */
  get messages(): AgentMessage[] {
    return this.history;
  }

  /** Usage of the latest response; R25 clears it after a migration. */
  get lastUsage(): Usage | null {
    return this.usage;
  }

  set lastUsage(usage: Usage | null) {
    this.usage = usage;
    this.measured = this.history.length;
  }

  get measuredMessageCount(): number {
    return this.measured;
  }

  /** The recorder's id, asked each time: never a copy (R27). */
  get sessionId(): string {
    return this.recorder.currentId;
  }

  get busy(): boolean {
    return this.controller !== null;
  }

  get tools(): readonly Tool[] {
    return this.toolList;
  }

  /** Adds a tool an extension brings (S3: the handoff tool needs the migration service). */
  addTool(tool: Tool): void {
    this.toolList = [...this.toolList, tool];
  }

  get toolNames(): string[] {
    return this.tools.map((tool) => tool.name);
  }

  /** Installs a plugin after those already there; returns its remover. */
  use(plugin: Plugin): () => void {
    this.plugins.push(plugin);
    return () => {
      this.plugins = this.plugins.filter((installed) => installed !== plugin);
    };
  }

  /** Aborts the in-flight request (and any running tool); the turn ends with AiZenError('aborted'). */
  abort(): void {
    this.controller?.abort();
  }

  /** Replaces the conversation in memory (after prune, R24); recording it is the caller's business. */
  replaceHistory(messages: readonly AgentMessage[]): void {
    this.history = [...messages];
    this.measured = Math.min(this.measured, this.history.length);
  }

  /** Adds a message outside a turn (the system prompt of a new session), recorded like any other. */
  async append(message: ChatMessage, options: { definition?: boolean } = {}): Promise<void> {
    await this.record(message, options.definition === true);
  }

  async send(text: string, options: SendOptions = {}): Promise<TurnResult> {
    if (this.controller) throw new AiZenError('usage', 'the agent is already working on a turn');
    const controller = new AbortController();
    this.controller = controller;
    const onAbort = (): void => controller.abort();
    if (options.signal?.aborted) controller.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.turn(text, controller.signal, options.observer);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      this.controller = null;
    }
  }

  private async turn(text: string, signal: AbortSignal, observer: TurnObserver | undefined): Promise<TurnResult> {
    await this.answerDanglingToolCalls();
    await this.record({ role: 'user', content: text }, false);
    let requests = 0;
    let promptTokens = 0;
    let completionTokens = 0;
    let usage: Usage | null = null;
    for (;;) {
      if (requests >= this.maxSteps) {
        throw new AiZenError('model', `stopped after ${this.maxSteps} model requests in one turn without a final answer`);
      }
      if (signal.aborted) throw new AiZenError('aborted', 'the request was aborted');
      const outgoing = this.history.map((entry) => entry.message);
      const refusal = await firstRefusal(this.plugins, (plugin) => plugin.beforeRequest?.({ messages: outgoing, agent: this }));
      if (refusal) throw new AiZenError('context-guard', refusal.reason);

      const prompt = this.history.length;
      requests += 1;
      this.logger.debug({ model: this.model, messages: prompt, request: requests }, 'model request');
      const response = await complete({
        client: this.client,
        model: this.model,
        messages: outgoing,
        tools: this.tools,
        signal,
        ...(observer?.onTextDelta ? { onTextDelta: (delta: string) => observer.onTextDelta?.(delta) } : {}),
      });
      await this.record(response.message, false);
      if (response.usage) {
        usage = response.usage;
        this.usage = response.usage;
        this.measured = prompt;
        promptTokens += response.usage.prompt_tokens;
        completionTokens += response.usage.completion_tokens;
        await this.recorder.appendUsage(response.usage);
      }
      this.logger.debug(
        { usage: response.usage, finishReason: response.finishReason, toolCalls: response.message.tool_calls?.length ?? 0 },
        'model response',
      );
      await notifyAll(this.plugins, (plugin) => plugin.afterResponse?.({ message: response.message, usage: response.usage }, this));

      const calls = response.message.tool_calls ?? [];
      if (calls.length === 0) {
        return { text: contentText(response.message.content), usage, requests, promptTokens, completionTokens };
      }
      await this.runToolCalls(calls, signal, observer);
      if (signal.aborted) throw new AiZenError('aborted', 'the request was aborted');
    }
  }

  /** Runs each call in order; every call gets a tool message, so the history stays valid even when aborted. */
  private async runToolCalls(calls: readonly ToolCall[], signal: AbortSignal, observer: TurnObserver | undefined): Promise<void> {
    for (const call of calls) {
      let request: ToolCallRequest = { id: call.id, name: call.function.name, args: call.function.arguments };
      let result: ToolResult;
      if (signal.aborted) {
        result = {
          forModel: 'not run: the turn was aborted by the user',
          forUser: `${call.function.name}: not run (aborted)`,
          isError: true,
        };
      } else {
        let checked = false;
        result = await runToolCall({
          call,
          tools: this.tools,
          context: { root: this.root, signal },
          beforeRun: async (valid) => {
            request = valid;
            checked = true;
            observer?.onToolCall?.(valid);
            return firstRefusal(this.plugins, (plugin) => plugin.beforeToolCall?.(valid, this));
          },
        });
        // A call that never got as far as running (unknown tool, bad arguments) is still shown.
        if (!checked) observer?.onToolCall?.(request);
        const final = result;
        await notifyAll(this.plugins, (plugin) => plugin.afterToolCall?.(request, final, this));
      }
      this.logger.debug({ tool: call.function.name, isError: result.isError, forUser: result.forUser }, 'tool call');
      observer?.onToolResult?.(request, result);
      await this.record({ role: 'tool', tool_call_id: call.id, content: result.forModel }, false);
    }
  }

  /**
   * A session cut off between a tool call and its result (a crash, a kill) would be rejected by
   * the endpoint; answer those calls first, on the record, so the conversation can go on.
   */
  private async answerDanglingToolCalls(): Promise<void> {
    const lastAssistant = this.history.findLastIndex((entry) => entry.message.role === 'assistant');
    if (lastAssistant < 0) return;
    const calls = this.history[lastAssistant]!.message.tool_calls ?? [];
    const answered = new Set(this.history.slice(lastAssistant + 1).map((entry) => entry.message.tool_call_id));
    for (const call of calls) {
      if (answered.has(call.id)) continue;
      this.logger.warn({ tool: call.function.name, id: call.id }, 'answering a tool call left without a result');
      await this.record(
        { role: 'tool', tool_call_id: call.id, content: 'not run: the session was interrupted before this tool call finished' },
        false,
      );
    }
  }

  /** On the record first, then in memory: the two never disagree about what was said. */
  private async record(message: ChatMessage, definition: boolean): Promise<void> {
    try {
      await this.recorder.appendMessage(message, definition ? { definition: true } : {});
    } catch (error) {
      if (AiZenError.isInstance(error)) throw error;
      throw new AiZenError(
        'session',
        `cannot record the session: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        { cause: error },
      );
    }
    this.history.push(definition ? { message, definition: true } : { message });
  }
}

/** For a resumed session: the prompt of its last measured reply held everything before that reply. */
function measuredBeforeLastReply(history: readonly AgentMessage[]): number {
  const last = history.findLastIndex((entry) => entry.message.role === 'assistant');
  return last < 0 ? history.length : last;
}

export function contentText(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : '',
      )
      .join('');
  }
  return '';
}
