// The model: any OpenAI-compatible chat-completions endpoint, through the real `openai` client.
// Every request streams with `include_usage`, so `usage.prompt_tokens` is known after each
// response (R19), and every failure becomes one line a person can act on.
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AiZenError } from '../errors.js';
import type { ChatMessage, ToolCall, Usage } from '../session/format.js';
import type { Tool } from './types.js';

export const DEFAULT_MODEL_TIMEOUT_MS = 60_000;

export interface ModelClientOptions {
  readonly apiKey: string | null;
  readonly baseURL: string | null;
  /** How long the endpoint may stay silent: before the first byte, and between streamed chunks. */
  readonly timeoutMs?: number;
  /**
   * Retries of 408/429/5xx and connection errors inside the client. 0 by default: a failed turn
   * leaves the session intact and the person decides whether to try again.
   */
  readonly maxRetries?: number;
  /** Where the client's own warnings go (never the terminal). */
  readonly logger?: Logger;
}

export function createModelClient(options: ModelClientOptions): OpenAI {
  const logger = options.logger;
  return new OpenAI({
    // Local endpoints (ollama, llama.cpp) need no key, but the client insists on one.
    apiKey: options.apiKey ?? 'no-api-key',
    baseURL: options.baseURL ?? 'https://api.openai.com/v1',
    timeout: options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? 0,
    logLevel: logger ? 'warn' : 'off',
    ...(logger
      ? {
          logger: {
            error: (message: string, ...rest: unknown[]) => logger.warn({ details: rest }, `openai: ${message}`),
            warn: (message: string, ...rest: unknown[]) => logger.warn({ details: rest }, `openai: ${message}`),
            info: (message: string, ...rest: unknown[]) => logger.debug({ details: rest }, `openai: ${message}`),
            debug: (message: string, ...rest: unknown[]) => logger.debug({ details: rest }, `openai: ${message}`),
          },
        }
      : {}),
  });
}

/** Our tools as the model sees them: a name, a description and a JSON schema of the arguments. */
export function toolDefinitions(tools: readonly Tool[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: z.toJSONSchema(tool.schema, { io: 'input' }) as Record<string, unknown>,
    },
  }));
}

export interface CompleteOptions {
  readonly client: OpenAI;
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly Tool[];
  readonly signal?: AbortSignal;
  readonly onTextDelta?: (delta: string) => void;
  /** Sampling controls, sent only when set (the agent's own turns leave them to the endpoint). */
  readonly temperature?: number;
  readonly seed?: number;
}

export interface Completion {
  /** The assistant message, assembled from the stream (tool-call arguments joined across chunks). */
  readonly message: ChatMessage;
  readonly usage: Usage | null;
  readonly finishReason: string | null;
}

interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One streamed chat completion. Throws AiZenError('model' | 'aborted') with one clear line. */
export async function complete(options: CompleteOptions): Promise<Completion> {
  const { client } = options;
  const timeoutMs = client.timeout;
  const controller = new AbortController();
  let timedOut = false;
  let idle: NodeJS.Timeout | undefined;
  // The client's own timeout stops at the response headers; a stream that goes quiet after
  // them would hang forever. This timer restarts with every chunk.
  const armIdleTimer = (): void => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
  };
  const onAbort = (): void => controller.abort();
  if (options.signal?.aborted) throw abortedError();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  let content = '';
  const calls: PartialToolCall[] = [];
  let usage: Usage | null = null;
  let finishReason: string | null = null;
  try {
    armIdleTimer();
    const stream = await client.chat.completions.create(
      {
        model: options.model,
        messages: options.messages as unknown as ChatCompletionMessageParam[],
        ...(options.tools && options.tools.length > 0 ? { tools: toolDefinitions(options.tools) } : {}),
        stream: true,
        stream_options: { include_usage: true },
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        ...(options.seed !== undefined ? { seed: options.seed } : {}),
      },
      { signal: controller.signal },
    );
    for await (const chunk of stream) {
      armIdleTimer();
      usage = readUsage(chunk) ?? usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      finishReason = choice.finish_reason ?? finishReason;
      const delta = choice.delta;
      if (typeof delta?.content === 'string' && delta.content !== '') {
        content += delta.content;
        options.onTextDelta?.(delta.content);
      }
      for (const call of delta?.tool_calls ?? []) {
        const slot = (calls[call.index] ??= { id: '', name: '', arguments: '' });
        if (call.id) slot.id = call.id;
        if (call.function?.name) slot.name += call.function.name;
        if (call.function?.arguments) slot.arguments += call.function.arguments;
      }
    }
    // The openai stream ends quietly when aborted; whoever aborted decides what it means.
    if (controller.signal.aborted) throw timedOut ? timeoutError(client, timeoutMs) : abortedError();
  } catch (error) {
    throw toModelError(error, { client, timeoutMs, timedOut, aborted: options.signal?.aborted === true });
  } finally {
    clearTimeout(idle);
    options.signal?.removeEventListener('abort', onAbort);
  }

  if (finishReason === null && content === '' && calls.length === 0) {
    throw new AiZenError('model', `the model sent an empty reply at ${endpoint(client)}`);
  }
  const toolCalls: ToolCall[] = calls
    .filter((call): call is PartialToolCall => call !== undefined)
    .map((call, index) => ({ id: call.id || `call_${index}`, type: 'function', function: { name: call.name, arguments: call.arguments } }));
  const message: ChatMessage =
    toolCalls.length > 0
      ? { role: 'assistant', content: content === '' ? null : content, tool_calls: toolCalls }
      : { role: 'assistant', content };
  return { message, usage, finishReason };
}

function readUsage(chunk: ChatCompletionChunk): Usage | null {
  const usage = chunk.usage;
  if (!usage) return null;
  const prompt = usage.prompt_tokens ?? 0;
  const completion = usage.completion_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: usage.total_tokens ?? prompt + completion };
}

function endpoint(client: OpenAI): string {
  return client.baseURL.replace(/\/+$/, '');
}

function abortedError(): AiZenError {
  return new AiZenError('aborted', 'the request was aborted');
}

function timeoutError(client: OpenAI, timeoutMs: number): AiZenError {
  const seconds = timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)}s` : `${timeoutMs}ms`;
  return new AiZenError('model', `model did not answer within ${seconds} at ${endpoint(client)}`);
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The first line of a server's error message, short enough for one terminal line. */
function shortReason(text: string): string {
  const line = text.split('\n')[0]?.trim() ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

/** The errno code somewhere down the cause chain (fetch wraps it twice). */
function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    if (typeof code === 'string' && code.startsWith('UND_ERR_')) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const CONNECTION_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection broken',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
};

function toModelError(error: unknown, context: { client: OpenAI; timeoutMs: number; timedOut: boolean; aborted: boolean }): AiZenError {
  if (AiZenError.isInstance(error)) return error;
  const { client } = context;
  const at = endpoint(client);
  if (context.timedOut || error instanceof OpenAI.APIConnectionTimeoutError) return timeoutError(client, context.timeoutMs);
  if (context.aborted || error instanceof OpenAI.APIUserAbortError) return abortedError();
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    const status = `${error.status}${STATUS_TEXT[error.status] ? ` ${STATUS_TEXT[error.status]}` : ''}`;
    const serverMessage = (error.error as { message?: unknown } | undefined)?.message;
    let reason = typeof serverMessage === 'string' ? shortReason(serverMessage) : '';
    if (error.status === 401) reason = `invalid api key${reason ? `: ${reason}` : ''}`;
    return new AiZenError('model', `model request failed: ${status}${reason ? ` (${reason})` : ''} at ${at}`, { cause: error });
  }
  const code = causeCode(error);
  if (error instanceof OpenAI.APIConnectionError) {
    const reason = (code && CONNECTION_REASONS[code]) ?? shortReason((error.cause as Error | undefined)?.message ?? error.message);
    return new AiZenError('model', `cannot reach the model at ${at}: ${reason}`, { cause: error });
  }
  // Anything thrown while reading the stream: the connection broke after the reply had begun.
  const reason = (code && CONNECTION_REASONS[code]) ?? shortReason(error instanceof Error ? error.message : String(error));
  return new AiZenError('model', `the model's reply broke off at ${at}: ${reason}`, { cause: error });
}
