// The fake server is shared test support: prove it speaks the protocol the real `openai` client expects.
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hang, httpError, reply, reset, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';

describe('fake OpenAI server', () => {
  let fake: FakeOpenAI;
  let client: OpenAI;
  beforeEach(async () => {
    fake = await startFakeOpenAI();
    client = new OpenAI({ apiKey: 'test', baseURL: fake.baseURL, maxRetries: 0, timeout: 2_000 });
  });
  afterEach(async () => {
    await fake.close();
  });

  it('streams text, a tool call split across chunks and a final usage chunk', async () => {
    fake.enqueue(
      reply()
        .text('hello there, this is long')
        .tool('write', { path: 'a.txt', content: 'x'.repeat(30) })
        .usage({ prompt_tokens: 11, completion_tokens: 5 }),
    );
    const stream = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const argumentFragments: string[] = [];
    let usage: unknown = null;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      text += delta?.content ?? '';
      for (const call of delta?.tool_calls ?? []) if (call.function?.arguments) argumentFragments.push(call.function.arguments);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('hello there, this is long');
    expect(argumentFragments.length).toBeGreaterThan(1);
    expect(JSON.parse(argumentFragments.join(''))).toEqual({ path: 'a.txt', content: 'x'.repeat(30) });
    expect(usage).toEqual({ prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 });
    expect(fake.requests[0]?.lastUserText).toBe('hi');
  });

  it('answers non-streaming requests and handlers see the request', async () => {
    fake.handle((request) => (request.lastUserText === 'ping' ? reply().text('pong') : undefined));
    const completion = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'ping' }] });
    expect(completion.choices[0]?.message.content).toBe('pong');
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it('fails the way real servers fail: HTTP error bodies, hangs, resets', async () => {
    fake.enqueue(httpError(401), hang(), reset());
    await expect(client.chat.completions.create({ model: 'm', messages: [] })).rejects.toMatchObject({
      status: 401,
      code: 'invalid_api_key',
    });
    // Headers arrive, then nothing: only an abort (or an idle timer) ends it.
    const controller = new AbortController();
    const hung = await client.chat.completions.create({ model: 'm', messages: [], stream: true }, { signal: controller.signal });
    let chunks = 0;
    const reading = (async () => {
      for await (const _ of hung) chunks += 1;
    })();
    controller.abort();
    await reading; // the openai stream ends quietly on abort; callers must check signal.aborted
    expect(chunks).toBe(0);
    const stream = await client.chat.completions.create({ model: 'm', messages: [], stream: true });
    await expect(
      (async () => {
        for await (const _ of stream) void _;
      })(),
    ).rejects.toThrow();
  });
});
