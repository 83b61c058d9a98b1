// A fake Anthropic Messages API (`POST /v1/messages`, streaming SSE or JSON) on 127.0.0.1, for
// tests that drive the real Claude Code CLI offline (ANTHROPIC_BASE_URL points at it). Replies to
// the main loop (requests that carry tools) are scripted with a small builder — text, tool_use
// blocks, the usage Claude records — and every request is recorded. Side requests the client makes
// on its own (titles, topic checks: no tools) get a short canned reply that touches no script.
//
//   const fake = await startFakeAnthropic();
//   fake.enqueue(anthropicReply().tool('Bash', { command: 'ls' }).usage({ input_tokens: 9000 }),
//                anthropicReply().text('done').usage({ input_tokens: 9100 }));
import type http from 'node:http';
import { listenLoopback, parseBody, ReplyScript } from './fake-http-server.js';

export interface AnthropicUsage {
  readonly input_tokens: number;
  readonly cache_creation_input_tokens?: number;
  readonly cache_read_input_tokens?: number;
  readonly output_tokens?: number;
  /** Which cache the written tokens went to (the real API sends it; which lifetime the prompt cache has). */
  readonly cache_creation?: { readonly ephemeral_1h_input_tokens: number; readonly ephemeral_5m_input_tokens: number };
}

type Block =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_use'; readonly name: string; readonly input: unknown };

export interface RecordedAnthropicRequest {
  readonly path: string;
  readonly body: any;
  /** The request carried tools: the agent's main loop. */
  readonly main: boolean;
  /** Text of the last user turn (its text blocks; tool results left out). */
  readonly lastUserText: string;
  /** Every text of the conversation, joined (to find what the client sent, e.g. Stop hook feedback). */
  readonly allText: string;
}

let counter = 0;

export class AnthropicReplyBuilder {
  readonly blocks: Block[] = [];
  usageValue: AnthropicUsage = { input_tokens: 1000, output_tokens: 10 };
  /** The model the reply names; null: the one the request asked for, as the real API answers. */
  modelName: string | null = null;

  text(text: string): this {
    this.blocks.push({ type: 'text', text });
    return this;
  }

  tool(name: string, input: unknown): this {
    this.blocks.push({ type: 'tool_use', name, input });
    return this;
  }

  usage(usage: AnthropicUsage): this {
    this.usageValue = usage;
    return this;
  }

  model(name: string): this {
    this.modelName = name;
    return this;
  }

  /** Answer only once `gate` settles: a turn that lasts until the test has seen what it waits for. */
  until(gate: Promise<unknown>): this {
    this.gate = gate;
    return this;
  }

  gate: Promise<unknown> | null = null;
}

export const anthropicReply = () => new AnthropicReplyBuilder();

/** A reply computed from the request (e.g. the Stop hook's reason names the document to write). */
export type ReplyFunction = (request: RecordedAnthropicRequest) => AnthropicReplyBuilder;

export interface FakeAnthropic {
  readonly baseURL: string;
  readonly requests: RecordedAnthropicRequest[];
  enqueue(...replies: (AnthropicReplyBuilder | ReplyFunction)[]): void;
  /** Main-loop requests still scripted. */
  pending(): number;
  close(): Promise<void>;
}

function textOf(content: unknown, withToolResults = false): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: any) => {
      if (part?.type === 'text') return String(part.text ?? '');
      if (withToolResults && part?.type === 'tool_result') return textOf(part.content);
      return '';
    })
    .filter((text) => text.length > 0)
    .join('\n');
}

function record(path: string, body: any): RecordedAnthropicRequest {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const lastUser = [...messages].reverse().find((message) => message?.role === 'user');
  return {
    path,
    body,
    main: Array.isArray(body?.tools) && body.tools.length > 0,
    lastUserText: textOf(lastUser?.content),
    allText: messages.map((message) => textOf(message?.content, true)).join('\n'),
  };
}

function sse(response: http.ServerResponse, event: string, data: unknown): void {
  response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** The cache lifetime a request asked for: its `cache_control` blocks name `ttl: "1h"`, else the API's default, 5 minutes. */
function requestedTtl(body: unknown): '1h' | '5m' {
  return JSON.stringify(body ?? null).includes('"ttl":"1h"') ? '1h' : '5m';
}

function send(
  response: http.ServerResponse,
  reply: AnthropicReplyBuilder,
  stream: boolean,
  requested: unknown,
  ttl: '1h' | '5m' = '5m',
): void {
  const model = reply.modelName ?? (typeof requested === 'string' ? requested : 'claude-opus-5-5');
  const id = `msg_fake${(counter += 1)}`;
  const usage = {
    input_tokens: reply.usageValue.input_tokens,
    cache_creation_input_tokens: reply.usageValue.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: reply.usageValue.cache_read_input_tokens ?? 0,
    output_tokens: reply.usageValue.output_tokens ?? 10,
  };
  // As the API answers: the tokens written to the cache, under the lifetime the request asked for.
  const written = usage.cache_creation_input_tokens;
  const cacheCreation = reply.usageValue.cache_creation ?? {
    ephemeral_1h_input_tokens: ttl === '1h' ? written : 0,
    ephemeral_5m_input_tokens: ttl === '5m' ? written : 0,
  };
  Object.assign(usage, { cache_creation: cacheCreation });
  const content = reply.blocks.map((block) =>
    block.type === 'text'
      ? { type: 'text', text: block.text }
      : { type: 'tool_use', id: `toolu_fake${(counter += 1)}`, name: block.name, input: block.input },
  );
  const stopReason = content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
  if (!stream) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      }),
    );
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  sse(response, 'message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      sse(response, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      sse(response, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    } else {
      sse(response, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      sse(response, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    sse(response, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sse(response, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  sse(response, 'message_stop', { type: 'message_stop' });
  response.end();
}

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const script = new ReplyScript<RecordedAnthropicRequest, AnthropicReplyBuilder | ReplyFunction>('fake-anthropic');
  const requests: RecordedAnthropicRequest[] = [];
  const server = await listenLoopback('fake-anthropic', async (request, response, raw) => {
    const url = (request.url ?? '').split('?')[0] ?? '';
    const body = parseBody(raw);
    if (request.method !== 'POST' || !url.endsWith('/v1/messages')) {
      // count_tokens and anything else: a plausible, harmless answer.
      response.writeHead(url.endsWith('/count_tokens') ? 200 : 404, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(
          url.endsWith('/count_tokens')
            ? { input_tokens: 100 }
            : { type: 'error', error: { type: 'not_found_error', message: 'not here' } },
        ),
      );
      return;
    }
    const recorded = record(url, body);
    requests.push(recorded);
    const stream = body?.stream === true;
    if (!recorded.main) {
      send(
        response,
        anthropicReply()
          .text('{"title": "fake", "isNewTopic": false}')
          .usage({ input_tokens: 50, output_tokens: 5 })
          .model('claude-haiku-4-5-20251001'),
        stream,
        body?.model,
      );
      return;
    }
    const next = await script.next(recorded);
    if (!next) {
      send(
        response,
        anthropicReply().text('(the fake model has no more scripted replies)').usage({ input_tokens: 1000, output_tokens: 5 }),
        stream,
        body?.model,
      );
      return;
    }
    const reply = typeof next === 'function' ? next(recorded) : next;
    const ttl = requestedTtl(body);
    if (reply.gate) void reply.gate.finally(() => send(response, reply, stream, body?.model, ttl));
    else send(response, reply, stream, body?.model, ttl);
  });
  return { baseURL: `http://127.0.0.1:${server.port}`, requests, enqueue: script.enqueue, pending: script.pending, close: server.close };
}
