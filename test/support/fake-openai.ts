// A fake OpenAI-compatible chat-completions server on 127.0.0.1, for tests only.
// The real `openai` client (in-process or in a spawned CLI) talks to it over a real socket;
// replies are scripted with a small builder, and every request body is recorded.
//
//   const fake = await startFakeOpenAI();
//   fake.enqueue(reply().tool('write', { path: 'a.txt', content: 'hi' }), reply().text('done'));
//   fake.handle((request) => request.lastUserText.includes('handoff') ? reply().text('ok') : undefined);
//   ... baseURL: fake.baseURL ...
//   await fake.close();
import type http from 'node:http';
import { listenLoopback, parseBody, ReplyScript } from './fake-http-server.js';

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (model, messages, tools, stream, stream_options …). */
  readonly body: any;
  readonly stream: boolean;
  readonly messages: any[];
  /** Text of the last user message ('' when there is none). */
  readonly lastUserText: string;
}

interface ToolCallSpec {
  readonly id: string;
  readonly name: string;
  /** Sent exactly as given when a string (lets tests send broken JSON), else JSON.stringify'd. */
  readonly arguments: string;
}

let toolCallCounter = 0;

/** A successful reply: text and/or tool calls, with usage. Chainable. */
export class ReplyBuilder {
  readonly kind = 'reply' as const;
  content = '';
  readonly toolCalls: ToolCallSpec[] = [];
  usageValue: FakeUsage | null | undefined = undefined;
  delayMs = 0;
  stalled = false;
  finishReason: string | null = null;
  /** Points in the content where streaming waits for a gate (see `hold`). */
  readonly holds: { readonly at: number; readonly gate: Promise<unknown> }[] = [];

  text(text: string): this {
    this.content += text;
    return this;
  }

  tool(name: string, args: unknown, id?: string): this {
    toolCallCounter += 1;
    const argumentsText = typeof args === 'string' ? args : JSON.stringify(args);
    this.toolCalls.push({ id: id ?? `call_${toolCallCounter}`, name, arguments: argumentsText });
    return this;
  }

  /** Usage reported in the final chunk (only when the request asked for it) or in the body. */
  usage(usage: FakeUsage): this {
    this.usageValue = usage;
    return this;
  }

  /** Report no usage at all, even when asked. (By default usage is estimated from the request.) */
  noUsage(): this {
    this.usageValue = null;
    return this;
  }

  /** Wait this long between streamed chunks (for tests that watch a reply arrive). */
  chunkDelay(ms: number): this {
    this.delayMs = ms;
    return this;
  }

  /** Stream the content and tool-call chunks, then send nothing more and keep the connection open. */
  stall(): this {
    this.stalled = true;
    return this;
  }

  /**
   * Stream the text added so far, then wait for `gate` before sending the rest — so a test can
   * look at a reply that has arrived only in part, and then let it finish.
   */
  hold(gate: Promise<unknown>): this {
    this.holds.push({ at: this.content.length, gate });
    return this;
  }

  finish(reason: string): this {
    this.finishReason = reason;
    return this;
  }
}

export interface HttpErrorReply {
  readonly kind: 'http-error';
  readonly status: number;
  readonly message: string;
  readonly type: string;
  readonly code: string | null;
}

export interface HangReply {
  readonly kind: 'hang';
}

export interface ResetReply {
  readonly kind: 'reset';
  /** Streamed before the connection is destroyed, so the reset happens mid-stream. */
  readonly partialText: string;
  /** Send a TCP reset (RST) instead of closing. */
  readonly hard: boolean;
}

export type Reply = ReplyBuilder | HttpErrorReply | HangReply | ResetReply;

export function reply(): ReplyBuilder {
  return new ReplyBuilder();
}

const DEFAULT_ERROR: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: 'bad request', type: 'invalid_request_error', code: null },
  401: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
  404: { message: 'The model does not exist.', type: 'invalid_request_error', code: 'model_not_found' },
  429: { message: 'Rate limit reached for requests.', type: 'requests', code: 'rate_limit_exceeded' },
  500: { message: 'The server had an error while processing your request.', type: 'server_error', code: null },
};

/** An HTTP error with an OpenAI-style body `{ error: { message, type, param, code } }`. */
export function httpError(status: number, message?: string, options: { type?: string; code?: string | null } = {}): HttpErrorReply {
  const fallback = DEFAULT_ERROR[status] ?? { message: `error ${status}`, type: 'server_error', code: null };
  return {
    kind: 'http-error',
    status,
    message: message ?? fallback.message,
    type: options.type ?? fallback.type,
    code: options.code === undefined ? fallback.code : options.code,
  };
}

/** Headers are sent, then nothing: the client must time out or be aborted. */
export function hang(): HangReply {
  return { kind: 'hang' };
}

/**
 * The connection dies mid-stream, after one chunk of partial text (for a non-streaming request,
 * at once, with a TCP reset). `hard: true` resets instead of closing mid-body.
 */
export function reset(options: { partialText?: string; hard?: boolean } = {}): ResetReply {
  return { kind: 'reset', partialText: options.partialText ?? 'partial', hard: options.hard === true };
}

export type Handler = (request: RecordedRequest) => Reply | undefined | Promise<Reply | undefined>;

export interface FakeOpenAI {
  /** e.g. `http://127.0.0.1:43123/v1` — pass as the client's baseURL / OPENAI_BASE_URL. */
  readonly baseURL: string;
  readonly requests: RecordedRequest[];
  /** Replies served in order, one per request, after handlers have passed. */
  enqueue(...replies: Reply[]): void;
  /** A handler computes a reply from the request; `undefined` passes to the next handler, then the queue. Returns a remover. */
  handle(fn: Handler): () => void;
  /** Replies still queued. */
  pending(): number;
  close(): Promise<void>;
}

export interface FakeOpenAIOptions {
  /** When set, requests without `Authorization: Bearer <apiKey>` get a 401 invalid_api_key. */
  apiKey?: string;
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const script = new ReplyScript<RecordedRequest, Reply>('fake-openai');
  const requests: RecordedRequest[] = [];
  let completionCounter = 0;

  async function serve(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const body = parseBody(raw);
    const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
    const lastUser = [...messages].reverse().find((m) => m?.role === 'user');
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body,
      stream: body?.stream === true,
      messages,
      lastUserText: contentText(lastUser?.content),
    };
    requests.push(recorded);

    if (!recorded.path.endsWith('/chat/completions') || recorded.method !== 'POST') {
      sendError(res, httpError(404, `fake-openai: no route ${recorded.method} ${recorded.path}`, { code: null }));
      return;
    }
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      sendError(res, httpError(401));
      return;
    }

    const chosen = await script.next(recorded);
    if (!chosen) {
      sendError(res, httpError(500, 'fake-openai: no reply queued for this request', { code: 'fake_queue_empty' }));
      return;
    }

    switch (chosen.kind) {
      case 'http-error':
        sendError(res, chosen);
        return;
      case 'hang':
        res.writeHead(200, { 'content-type': recorded.stream ? 'text/event-stream' : 'application/json' });
        res.flushHeaders();
        return; // never ends; close() destroys the socket
      case 'reset':
        if (recorded.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const socket = res.socket;
          // Once the chunk is on the wire, the connection dies in the middle of the body. By default
          // it is closed (FIN), which the client always sees after the chunk; a hard reset (RST) may
          // overtake data the client has not read yet, so the failure can come before the reply.
          res.write(sse(chunk(nextId(), body?.model, { role: 'assistant', content: chosen.partialText }, null)), () => {
            if (chosen.hard) socket?.resetAndDestroy();
            else socket?.destroy();
          });
        } else {
          res.socket?.resetAndDestroy();
        }
        return;
      case 'reply':
        if (recorded.stream) await streamReply(res, chosen, recorded);
        else sendCompletion(res, chosen, recorded);
        return;
    }
  }

  function nextId(): string {
    completionCounter += 1;
    return `chatcmpl-fake-${completionCounter}`;
  }

  function usageFor(built: ReplyBuilder, request: RecordedRequest): FakeUsage | null {
    if (built.usageValue === null) return null;
    const usage = built.usageValue ?? {
      // A plausible estimate so clients that track usage see something real-looking.
      prompt_tokens: Math.ceil(JSON.stringify(request.messages).length / 4),
      completion_tokens: Math.max(1, Math.ceil((built.content.length + built.toolCalls.reduce((n, c) => n + c.arguments.length, 0)) / 4)),
    };
    return { ...usage, total_tokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens };
  }

  function finishReasonOf(built: ReplyBuilder): string {
    return built.finishReason ?? (built.toolCalls.length > 0 ? 'tool_calls' : 'stop');
  }

  function sendCompletion(res: http.ServerResponse, built: ReplyBuilder, request: RecordedRequest): void {
    const usage = usageFor(built, request);
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: built.toolCalls.length > 0 && built.content === '' ? null : built.content,
    };
    if (built.toolCalls.length > 0) {
      message.tool_calls = built.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    const payload = {
      id: nextId(),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.body?.model ?? 'fake-model',
      choices: [{ index: 0, message, finish_reason: finishReasonOf(built), logprobs: null }],
      ...(usage ? { usage } : {}),
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(payload));
  }

  async function streamReply(res: http.ServerResponse, built: ReplyBuilder, request: RecordedRequest): Promise<void> {
    const id = nextId();
    const model = request.body?.model ?? 'fake-model';
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const write = async (data: string): Promise<void> => {
      if (res.destroyed) return;
      res.write(data);
      if (built.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, built.delayMs));
    };

    await write(sse(chunk(id, model, { role: 'assistant', content: '' }, null)));
    let sent = 0;
    for (const { at, gate } of [...built.holds, { at: built.content.length, gate: Promise.resolve() }]) {
      for (const piece of splitText(built.content.slice(sent, at), 12)) await write(sse(chunk(id, model, { content: piece }, null)));
      sent = Math.max(sent, at);
      await gate;
    }
    for (const [index, call] of built.toolCalls.entries()) {
      // The first chunk names the call; the arguments follow in several fragments, as real servers do.
      await write(
        sse(
          chunk(id, model, { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }, null),
        ),
      );
      for (const fragment of splitInto(call.arguments, 3)) {
        await write(sse(chunk(id, model, { tool_calls: [{ index, function: { arguments: fragment } }] }, null)));
      }
    }
    if (built.stalled) {
      res.flushHeaders();
      return; // keep the connection open, send nothing more
    }
    await write(sse(chunk(id, model, {}, finishReasonOf(built))));
    const usage = usageFor(built, request);
    if (request.body?.stream_options?.include_usage === true && usage) {
      await write(sse({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [], usage }));
    }
    res.end('data: [DONE]\n\n');
  }

  const server = await listenLoopback('fake-openai', serve);
  const { enqueue, handle, pending } = script;
  return { baseURL: `http://127.0.0.1:${server.port}/v1`, requests, enqueue, handle, pending, close: server.close };
}

function sendError(res: http.ServerResponse, error: HttpErrorReply): void {
  res.writeHead(error.status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: error.message, type: error.type, param: null, code: error.code } }));
}

function chunk(id: string, model: string, delta: Record<string, unknown>, finishReason: string | null): Record<string, unknown> {
  return {
    id,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  };
}

function sse(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

function splitText(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}

/** Split into `parts` non-empty fragments (fewer when the text is shorter). */
function splitInto(text: string, parts: number): string[] {
  if (text.length === 0) return [''];
  const size = Math.ceil(text.length / parts);
  return splitText(text, size);
}

/** The text of a message's content, whether a string or an array of parts. */
export function contentText(content: unknown): string {
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
