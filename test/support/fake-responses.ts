// A fake OpenAI Responses API server (`POST /v1/responses`, SSE) on 127.0.0.1, for tests that drive
// the real Codex CLI offline: a `[model_providers.x]` with `wire_api = "responses"` points at it.
// Replies are scripted with a small builder and every request body is recorded. The event shapes
// follow the public Responses streaming reference and what the real client was seen to accept.
//
//   const fake = await startFakeResponses();
//   fake.enqueue(responsesReply().exec('ls').usage({ input_tokens: 9000, output_tokens: 20 }),
//                responsesReply().text('done').usage({ input_tokens: 9100, output_tokens: 5 }));
//   ... base_url = fake.baseURL ...
//   await fake.close();
import type http from 'node:http';
import { listenLoopback, parseBody, ReplyScript } from './fake-http-server.js';

/** What `response.completed` reports; Codex records it as `last_token_usage`. */
export interface ResponsesUsage {
  /** All input tokens, cached ones included (the Responses API counts them inside). */
  readonly input_tokens: number;
  readonly cached_tokens?: number;
  readonly output_tokens: number;
  readonly reasoning_tokens?: number;
  /** Defaults to input_tokens + output_tokens. */
  readonly total_tokens?: number;
}

export interface RecordedResponsesRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: any;
  /** The request's `input` items. */
  readonly input: any[];
  /** Text of the last user message that the user typed (not the harness's `<environment_context>`). */
  readonly lastUserText: string;
  /** Output items of earlier tool calls sent back in this request (`function_call_output`, `custom_tool_call_output`). */
  readonly toolOutputs: any[];
}

type OutputItemSpec =
  | { readonly kind: 'message'; readonly text: string }
  | { readonly kind: 'function'; readonly name: string; readonly arguments: string; readonly namespace?: string }
  | { readonly kind: 'custom'; readonly name: string; readonly input: string };

let itemCounter = 0;

/** One model reply: text, tool calls, usage. Chainable. */
export class ResponsesReplyBuilder {
  readonly kind = 'reply' as const;
  readonly items: OutputItemSpec[] = [];
  usageValue: ResponsesUsage | null = null;
  delayMs = 0;
  gate: Promise<unknown> | null = null;

  text(text: string): this {
    this.items.push({ kind: 'message', text });
    return this;
  }

  /** A function call; `args` is sent as given when a string, else JSON-encoded. */
  call(name: string, args: unknown): this {
    this.items.push({ kind: 'function', name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
    return this;
  }

  /** A call of a tool the request offered inside a namespace (Codex offers an MCP server's tools as `mcp__<server>`). */
  callIn(namespace: string, name: string, args: unknown): this {
    this.items.push({ kind: 'function', name, namespace, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
    return this;
  }

  /** Codex's shell tool (`exec_command`, unified exec). */
  exec(cmd: string): this {
    return this.call('exec_command', { cmd, tty: false, yield_time_ms: 10_000 });
  }

  /** Codex's freeform `apply_patch` tool (models whose catalog entry offers it). */
  applyPatch(patch: string): this {
    this.items.push({ kind: 'custom', name: 'apply_patch', input: patch });
    return this;
  }

  usage(usage: ResponsesUsage): this {
    this.usageValue = usage;
    return this;
  }

  /** Wait this long before answering (a turn that takes a while, to look at the client meanwhile). */
  delay(ms: number): this {
    this.delayMs = ms;
    return this;
  }

  /** Answer only once `gate` settles: a turn that lasts until the test has seen what it waits for. */
  until(gate: Promise<unknown>): this {
    this.gate = gate;
    return this;
  }
}

export interface ResponsesHttpError {
  readonly kind: 'http-error';
  readonly status: number;
  readonly message: string;
}

export type ResponsesReply = ResponsesReplyBuilder | ResponsesHttpError;

export function responsesReply(): ResponsesReplyBuilder {
  return new ResponsesReplyBuilder();
}

export function responsesHttpError(status: number, message = `error ${status}`): ResponsesHttpError {
  return { kind: 'http-error', status, message };
}

export type ResponsesHandler = (request: RecordedResponsesRequest) => ResponsesReply | undefined;

export interface FakeResponses {
  /** e.g. `http://127.0.0.1:43123/v1` — the provider's base_url. */
  readonly baseURL: string;
  readonly requests: RecordedResponsesRequest[];
  enqueue(...replies: ResponsesReply[]): void;
  /** A handler may answer a request; `undefined` passes to the next one, then to the queue. Returns a remover. */
  handle(fn: ResponsesHandler): () => void;
  pending(): number;
  close(): Promise<void>;
}

export async function startFakeResponses(): Promise<FakeResponses> {
  const script = new ReplyScript<RecordedResponsesRequest, ResponsesReply>('fake-responses');
  const requests: RecordedResponsesRequest[] = [];
  let responseCounter = 0;

  async function serve(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const body = parseBody(raw);
    const input: any[] = Array.isArray(body?.input) ? body.input : [];
    const recorded: RecordedResponsesRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body,
      input,
      lastUserText: lastUserText(input),
      toolOutputs: input.filter((item) => item?.type === 'function_call_output' || item?.type === 'custom_tool_call_output'),
    };
    requests.push(recorded);
    if (recorded.method !== 'POST' || !recorded.path.split('?')[0]!.endsWith('/responses')) {
      sendError(res, responsesHttpError(404, `fake-responses: no route ${recorded.method} ${recorded.path}`));
      return;
    }
    const chosen = await script.next(recorded);
    if (!chosen) {
      sendError(res, responsesHttpError(500, 'fake-responses: no reply queued for this request'));
      return;
    }
    if (chosen.kind === 'http-error') {
      sendError(res, chosen);
      return;
    }
    responseCounter += 1;
    const id = `resp_fake_${responseCounter}`;
    const built = chosen;
    const send = () => streamReply(res, built, id, body?.model ?? 'fake-model');
    if (built.gate) void built.gate.finally(send);
    else if (built.delayMs > 0) setTimeout(send, built.delayMs);
    else send();
  }

  const server = await listenLoopback('fake-responses', serve);
  const { enqueue, handle, pending } = script;
  return { baseURL: `http://127.0.0.1:${server.port}/v1`, requests, enqueue, handle, pending, close: server.close };
}

function streamReply(res: http.ServerResponse, built: ResponsesReplyBuilder, id: string, model: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let sequence = 0;
  const send = (event: Record<string, unknown>) => {
    res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence++ })}\n\n`);
  };
  const created = Math.floor(Date.now() / 1000);
  const base = { id, object: 'response', created_at: created, model };
  send({ type: 'response.created', response: { ...base, status: 'in_progress', output: [] } });
  const output: Record<string, unknown>[] = [];
  for (const [index, spec] of built.items.entries()) {
    itemCounter += 1;
    const done = outputItem(spec, itemCounter);
    const itemId = String(done.id);
    send({
      type: 'response.output_item.added',
      output_index: index,
      item: { ...done, status: 'in_progress', ...(spec.kind === 'message' ? { content: [] } : {}) },
    });
    if (spec.kind === 'message') {
      send({
        type: 'response.content_part.added',
        item_id: itemId,
        output_index: index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      });
      for (const piece of splitText(spec.text, 40))
        send({ type: 'response.output_text.delta', item_id: itemId, output_index: index, content_index: 0, delta: piece });
      send({ type: 'response.output_text.done', item_id: itemId, output_index: index, content_index: 0, text: spec.text });
    } else if (spec.kind === 'function') {
      send({ type: 'response.function_call_arguments.done', item_id: itemId, output_index: index, arguments: spec.arguments });
    }
    send({ type: 'response.output_item.done', output_index: index, item: done });
    output.push(done);
  }
  const usage = built.usageValue ?? { input_tokens: 1000, output_tokens: 10 };
  send({
    type: 'response.completed',
    response: {
      ...base,
      status: 'completed',
      output,
      usage: {
        input_tokens: usage.input_tokens,
        input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
        output_tokens: usage.output_tokens,
        output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
        total_tokens: usage.total_tokens ?? usage.input_tokens + usage.output_tokens,
      },
    },
  });
  res.end();
}

function outputItem(spec: OutputItemSpec, counter: number): Record<string, unknown> {
  switch (spec.kind) {
    case 'message':
      return {
        type: 'message',
        id: `msg_fake_${counter}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: spec.text, annotations: [] }],
      };
    case 'function':
      return {
        type: 'function_call',
        id: `fc_fake_${counter}`,
        call_id: `call_fake_${counter}`,
        name: spec.name,
        ...(spec.namespace !== undefined ? { namespace: spec.namespace } : {}),
        arguments: spec.arguments,
        status: 'completed',
      };
    case 'custom':
      return {
        type: 'custom_tool_call',
        id: `ctc_fake_${counter}`,
        call_id: `call_fake_${counter}`,
        name: spec.name,
        input: spec.input,
        status: 'completed',
      };
  }
}

function lastUserText(input: any[]): string {
  for (let at = input.length - 1; at >= 0; at -= 1) {
    const item = input[at];
    if (item?.type !== 'message' || item.role !== 'user' || !Array.isArray(item.content)) continue;
    const text = item.content
      .filter((part: any) => part?.type === 'input_text' && typeof part.text === 'string')
      .map((part: any) => part.text as string)
      .join('\n');
    // The harness sends its own context as user messages wrapped in tags; the user's words are not.
    if (text.trimStart().startsWith('<')) continue;
    return text;
  }
  return '';
}

function sendError(res: http.ServerResponse, error: ResponsesHttpError): void {
  res.writeHead(error.status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: error.message, type: 'invalid_request_error', param: null, code: null } }));
}

function splitText(text: string, size: number): string[] {
  if (text === '') return [''];
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}
