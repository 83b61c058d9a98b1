// A scripted OpenAI-compatible model for the fidelity benchmark (never shipped: bench/ only). It
// streams chat completions the way the real endpoint does (SSE chunks, a usage chunk, [DONE]); what
// it answers comes from a handler the benchmark sets per phase.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedRequest {
  readonly messages: readonly { role: string; content?: unknown; tool_calls?: unknown }[];
  readonly tools: unknown;
  /** The text of the last user message. */
  readonly lastUserText: string;
}

export interface ScriptedReply {
  readonly text?: string;
  readonly toolCalls?: readonly { readonly name: string; readonly args: unknown }[];
}

export type ScriptedHandler = (request: ScriptedRequest) => ScriptedReply;

export interface ScriptedModel {
  readonly baseURL: string;
  handler: ScriptedHandler;
  requests: number;
  close(): Promise<void>;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '')).join('\n');
  return '';
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  let callId = 0;
  const model: ScriptedModel = {
    baseURL: '',
    handler: () => ({ text: 'ok' }),
    requests: 0,
    close: async () => {},
  };
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      model.requests += 1;
      const parsed = JSON.parse(body) as { messages: ScriptedRequest['messages']; tools?: unknown };
      const lastUser = [...parsed.messages].reverse().find((message) => message.role === 'user');
      const reply = model.handler({ messages: parsed.messages, tools: parsed.tools, lastUserText: textOf(lastUser?.content) });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`);
      const base = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 0, model: 'bench-model' };
      const delta: Record<string, unknown> = { role: 'assistant' };
      if (reply.text !== undefined) delta.content = reply.text;
      if (reply.toolCalls && reply.toolCalls.length > 0) {
        delta.tool_calls = reply.toolCalls.map((call, index) => ({
          index,
          id: `call_${callId + index + 1}`,
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(call.args) },
        }));
        callId += reply.toolCalls.length;
      }
      send({ ...base, choices: [{ index: 0, delta, finish_reason: null }] });
      send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: reply.toolCalls?.length ? 'tool_calls' : 'stop' }] });
      // A small, fixed usage: the benchmark measures documents, not the context guard.
      send({ ...base, choices: [], usage: { prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050 } });
      response.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(model, {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
