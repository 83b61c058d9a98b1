import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { complete, createModelClient } from '../../src/agent/model-client.js';
import { AiZenError } from '../../src/errors.js';
import { hang, httpError, reply, reset, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';

async function failure(promise: Promise<unknown>): Promise<AiZenError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!AiZenError.isInstance(error)) throw new Error(`expected an AiZenError, got ${String(error)}`);
  expect(error.message).not.toContain('\n');
  return error;
}

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('model client', () => {
  let fake: FakeOpenAI;
  beforeEach(async () => {
    fake = await startFakeOpenAI();
  });
  afterEach(async () => {
    await fake.close();
  });
  const client = (timeoutMs = 5_000) => createModelClient({ apiKey: 'test-key', baseURL: fake.baseURL, timeoutMs });
  const ask = (timeoutMs?: number, signal?: AbortSignal) =>
    complete({ client: client(timeoutMs), model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], ...(signal ? { signal } : {}) });

  it('streams with include_usage and assembles tool calls split across chunks', async () => {
    fake.enqueue(
      reply()
        .text('Let me write.')
        .tool('write', { path: 'a.txt', content: 'hello world, a long enough text' })
        .usage({ prompt_tokens: 120, completion_tokens: 30 }),
    );
    const deltas: string[] = [];
    const result = await complete({
      client: client(),
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      onTextDelta: (delta) => deltas.push(delta),
    });
    expect(fake.requests[0]?.body).toMatchObject({ model: 'gpt-4o', stream: true, stream_options: { include_usage: true } });
    expect(deltas.join('')).toBe('Let me write.');
    expect(result.usage).toEqual({ prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 });
    expect(result.message.role).toBe('assistant');
    expect(result.message.tool_calls).toHaveLength(1);
    expect(JSON.parse(result.message.tool_calls![0]!.function.arguments)).toEqual({
      path: 'a.txt',
      content: 'hello world, a long enough text',
    });
  });

  it('401 → one line naming the status, the bad key and the endpoint', async () => {
    fake.enqueue(httpError(401));
    const error = await failure(ask());
    expect(error.code).toBe('model');
    expect(error.message).toBe(`model request failed: 401 Unauthorized (invalid api key: Incorrect API key provided.) at ${fake.baseURL}`);
  });

  it('429 and 500 → one line with the status and the server reason', async () => {
    fake.enqueue(httpError(429), httpError(500));
    expect((await failure(ask())).message).toMatch(
      /^model request failed: 429 Too Many Requests \(Rate limit reached for requests\.\) at http:\/\/127\.0\.0\.1:\d+\/v1$/,
    );
    expect((await failure(ask())).message).toMatch(/^model request failed: 500 Internal Server Error \(The server had an error/);
  });

  it('a hanging response ends with a timeout line', async () => {
    fake.enqueue(hang());
    const error = await failure(ask(300));
    expect(error.code).toBe('model');
    expect(error.message).toBe(`model did not answer within 300ms at ${fake.baseURL}`);
  });

  it('a stream that goes quiet after its first chunks times out too', async () => {
    fake.enqueue(reply().text('partial answer').stall());
    const error = await failure(ask(300));
    expect(error.message).toMatch(/^model did not answer within 300ms/);
  });

  it('a connection reset mid-stream → one line saying the reply broke off', async () => {
    fake.enqueue(reset());
    const error = await failure(ask());
    expect(error.code).toBe('model');
    expect(error.message).toBe(`the model's reply broke off at ${fake.baseURL}: connection closed by the server`);
  });

  it('a hard TCP reset → one line, whether it overtakes the first chunk or not', async () => {
    fake.enqueue(reset({ hard: true }));
    const error = await failure(ask());
    expect(error.code).toBe('model');
    expect(error.message).toMatch(
      /^(the model's reply broke off|cannot reach the model) at http:\/\/127\.0\.0\.1:\d+\/v1: connection (reset|closed by the server)$/,
    );
  });

  it('a refused connection → cannot reach the model', async () => {
    const port = await closedPort();
    const refused = createModelClient({ apiKey: 'k', baseURL: `http://127.0.0.1:${port}/v1`, timeoutMs: 5_000 });
    const error = await failure(complete({ client: refused, model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
    expect(error.message).toBe(`cannot reach the model at http://127.0.0.1:${port}/v1: connection refused`);
  });

  it('abort mid-stream → AiZenError aborted', async () => {
    fake.enqueue(reply().text('a slow reply that never finishes').stall());
    const controller = new AbortController();
    const pending = complete({
      client: client(),
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      signal: controller.signal,
      onTextDelta: () => controller.abort(),
    });
    const error = await failure(pending);
    expect(error.code).toBe('aborted');
  });
});
