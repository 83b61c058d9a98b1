// The agent runtime ("Agent runtime", "Plugins"): the tool loop, auto-save, failures
// that leave the session intact, abort, and plugins composed in order.
import { promises as fs } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withOneShotPlugin } from '../../src/agent/plugins/run-plugins.js';
import type { Plugin } from '../../src/agent/types.js';
import { AiZenError } from '../../src/errors.js';
import { hang, httpError, reply, reset } from '../support/fake-openai.js';
import { makeAgentFixture, shape, type AgentFixture } from './agent-fixture.js';

async function rejection(promise: Promise<unknown>): Promise<AiZenError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!AiZenError.isInstance(error)) throw new Error(`expected an AiZenError, got ${String(error)}`);
  return error;
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('agent runtime', () => {
  let fixture: AgentFixture;
  afterEach(async () => {
    await fixture?.close();
  });

  it('runs a multi-step tool turn and records every message and usage line by line', async () => {
    fixture = await makeAgentFixture();
    const { fake, agent, repo } = fixture;
    fake.enqueue(
      reply()
        .tool('write', { path: 'notes/hello.txt', content: 'hello from the agent' })
        .usage({ prompt_tokens: 100, completion_tokens: 10 }),
      reply().text('Checking.').tool('read', { path: 'notes/hello.txt' }).usage({ prompt_tokens: 130, completion_tokens: 12 }),
      reply().text('Wrote notes/hello.txt and read it back.').usage({ prompt_tokens: 170, completion_tokens: 9 }),
    );
    const seen: string[] = [];
    const result = await agent.send('write a hello file', {
      observer: { onToolCall: (call) => seen.push(call.name), onToolResult: (_call, r) => seen.push(r.forUser) },
    });

    expect(result).toEqual({
      text: 'Wrote notes/hello.txt and read it back.',
      usage: { prompt_tokens: 170, completion_tokens: 9, total_tokens: 179 },
      requests: 3,
      promptTokens: 400,
      completionTokens: 31,
    });
    expect(await fs.readFile(path.join(repo.root, 'notes/hello.txt'), 'utf8')).toBe('hello from the agent');
    expect(seen).toEqual(['write', 'write notes/hello.txt (20 bytes)', 'read', 'read notes/hello.txt (20 bytes)']);
    // The model saw each tool result before its next step.
    expect(fake.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'wrote notes/hello.txt (20 bytes)' });
    expect(fake.requests[2]?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'hello from the agent' });
    expect(fake.requests[0]?.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual([
      'read',
      'write',
      'edit',
      'batch_edit',
      'rm',
      'rename',
      'mkdir',
      'copy',
      'exec',
    ]);

    const lines = await fixture.sessionLines();
    expect(shape(lines)).toEqual([
      'session',
      'system*',
      'user',
      'assistant',
      'usage',
      'tool',
      'assistant',
      'usage',
      'tool',
      'assistant',
      'usage',
    ]);
    expect(lines.at(-1)).toEqual({ type: 'usage', usage: { prompt_tokens: 170, completion_tokens: 9, total_tokens: 179 } });
    expect(agent.lastUsage?.prompt_tokens).toBe(170);
    expect(agent.messages.map((entry) => entry.message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
  });

  it('auto-saves as it goes: a tool already sees its own call and the usage on disk', async () => {
    let onDisk: string[] = [];
    const peek: Plugin = {
      name: 'peek',
      async beforeToolCall() {
        onDisk = shape(await fixture.sessionLines());
        return undefined;
      },
    };
    fixture = await makeAgentFixture({ plugins: [peek] });
    fixture.fake.enqueue(reply().tool('mkdir', { path: 'x' }).usage({ prompt_tokens: 50, completion_tokens: 5 }), reply().text('ok'));
    await fixture.agent.send('make x');
    expect(onDisk).toEqual(['session', 'system*', 'user', 'assistant', 'usage']);
  });

  describe('each model failure gives one clear line and leaves the session intact and usable', () => {
    it.each([
      // Only the hang waits for the timeout; a roomy one for the rest keeps a loaded machine from
      // turning a quick failure into a timeout.
      ['401 bad key', () => httpError(401), /^model request failed: 401 Unauthorized \(invalid api key/, 30_000],
      ['429', () => httpError(429), /^model request failed: 429 Too Many Requests/, 30_000],
      ['500', () => httpError(500), /^model request failed: 500 Internal Server Error/, 30_000],
      ['hang → timeout', () => hang(), /^model did not answer within 400ms at http:\/\/127\.0\.0\.1:\d+\/v1$/, 400],
      [
        'reset mid-stream',
        () => reset(),
        /^the model's reply broke off at http:\/\/127\.0\.0\.1:\d+\/v1: connection closed by the server$/,
        30_000,
      ],
    ])('%s', async (_name, failure, expected, timeoutMs) => {
      fixture = await makeAgentFixture({ timeoutMs });
      const { fake, agent } = fixture;
      fake.enqueue(failure());
      const error = await rejection(agent.send('first question'));
      expect(error.code).toBe('model');
      expect(error.message).toMatch(expected);
      expect(error.message).not.toContain('\n');
      expect(agent.busy).toBe(false);
      expect(shape(await fixture.sessionLines())).toEqual(['session', 'system*', 'user']);

      fake.enqueue(reply().text('second answer'));
      expect((await agent.send('second question')).text).toBe('second answer');
      expect(
        fake.requests
          .at(-1)
          ?.messages.map((m: { content: string }) => m.content)
          .slice(1),
      ).toEqual(['first question', 'second question']);
      expect(shape(await fixture.sessionLines())).toEqual(['session', 'system*', 'user', 'user', 'assistant', 'usage']);
    });

    it('connection refused', async () => {
      const port = await closedPort();
      fixture = await makeAgentFixture({ baseURL: `http://127.0.0.1:${port}/v1` });
      const error = await rejection(fixture.agent.send('hello'));
      expect(error.message).toBe(`cannot reach the model at http://127.0.0.1:${port}/v1: connection refused`);
      expect(shape(await fixture.sessionLines())).toEqual(['session', 'system*', 'user']);
    });
  });

  it('abort mid-stream ends the turn with "aborted" and keeps the session valid', async () => {
    fixture = await makeAgentFixture();
    const { fake, agent } = fixture;
    fake.enqueue(reply().text('a long reply that never ends').stall());
    const error = await rejection(agent.send('tell me a story', { observer: { onTextDelta: () => agent.abort() } }));
    expect(error.code).toBe('aborted');
    expect(agent.busy).toBe(false);
    expect(shape(await fixture.sessionLines())).toEqual(['session', 'system*', 'user']);
    fake.enqueue(reply().text('fine'));
    expect((await agent.send('short then')).text).toBe('fine');
  });

  it('abort during a tool call kills it and still answers every call, so the history stays valid', async () => {
    fixture = await makeAgentFixture();
    const { fake, agent } = fixture;
    fake.enqueue(reply().tool('exec', { command: 'sleep 30' }).tool('write', { path: 'never.txt', content: 'x' }));
    const error = await rejection(agent.send('run it', { observer: { onToolCall: (call) => call.name === 'exec' && agent.abort() } }));
    expect(error.code).toBe('aborted');
    const lines = await fixture.sessionLines();
    expect(shape(lines)).toEqual(['session', 'system*', 'user', 'assistant', 'usage', 'tool', 'tool']);
    const results = lines.flatMap((line) =>
      line.type === 'message' && line.message.role === 'tool' ? [String(line.message.content)] : [],
    );
    expect(results[0]).toMatch(/\[killed: the turn was aborted\]$/);
    expect(results[1]).toBe('not run: the turn was aborted by the user');
    await expect(fs.lstat(path.join(fixture.repo.root, 'never.txt'))).rejects.toThrow();
  });

  it('a resumed session cut off between a tool call and its result is repaired on the record', async () => {
    fixture = await makeAgentFixture();
    const { context, agent, fake } = fixture;
    // What a kill between the assistant line and the tool line leaves behind.
    await context.appendMessage({ role: 'user', content: 'earlier' });
    await context.appendMessage({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_lost', type: 'function', function: { name: 'exec', arguments: '{"command":"true"}' } }],
    });
    agent.replaceHistory([
      ...agent.messages,
      { message: { role: 'user', content: 'earlier' } },
      {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_lost', type: 'function', function: { name: 'exec', arguments: '{"command":"true"}' } }],
        },
      },
    ]);
    fake.enqueue(reply().text('carrying on'));
    await agent.send('go on');
    expect(fake.requests[0]?.messages.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_lost', content: 'not run: the session was interrupted before this tool call finished' },
      { role: 'user', content: 'go on' },
    ]);
    expect(shape(await fixture.sessionLines())).toEqual(['session', 'system*', 'user', 'assistant', 'tool', 'user', 'assistant', 'usage']);
  });

  describe('plugins', () => {
    it('compose in order: the first refusal wins, and a tool refusal is soft (the reason is the result)', async () => {
      const calls: string[] = [];
      const first: Plugin = {
        name: 'first',
        beforeToolCall(call) {
          calls.push(`first:${call.name}`);
          return call.name === 'write' ? { refuse: 'refused by policy: write only docs/' } : undefined;
        },
        afterToolCall(call, result) {
          calls.push(`after:${call.name}:${result.isError}`);
        },
        afterResponse(response) {
          calls.push(`response:${response.usage?.prompt_tokens ?? 'none'}`);
        },
      };
      const second: Plugin = {
        name: 'second',
        beforeToolCall(call) {
          calls.push(`second:${call.name}`);
          return undefined;
        },
      };
      fixture = await makeAgentFixture({ plugins: [first, second] });
      const { fake, agent, repo } = fixture;
      fake.enqueue(
        reply().tool('write', { path: 'src/x.ts', content: 'x' }).usage({ prompt_tokens: 10, completion_tokens: 1 }),
        reply().tool('mkdir', { path: 'docs' }).usage({ prompt_tokens: 20, completion_tokens: 1 }),
        reply().text('ok').usage({ prompt_tokens: 30, completion_tokens: 1 }),
      );
      expect((await agent.send('go')).text).toBe('ok');
      expect(calls).toEqual([
        'response:10',
        'first:write',
        'after:write:true',
        'response:20',
        'first:mkdir',
        'second:mkdir',
        'after:mkdir:false',
        'response:30',
      ]);
      expect(fake.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'refused by policy: write only docs/' });
      await expect(fs.lstat(path.join(repo.root, 'src/x.ts'))).rejects.toThrow();
    });

    it('a beforeRequest refusal stops the turn with a context-guard error; nothing is sent', async () => {
      fixture = await makeAgentFixture({ plugins: [{ name: 'no', beforeRequest: () => ({ refuse: 'too long' }) }] });
      const error = await rejection(fixture.agent.send('hi'));
      expect(error).toMatchObject({ code: 'context-guard', message: 'too long' });
      expect(fixture.fake.requests).toHaveLength(0);
      expect(shape(await fixture.sessionLines())).toEqual(['session', 'system*', 'user']);
    });

    it('a one-shot plugin is removed even when the turn throws', async () => {
      fixture = await makeAgentFixture();
      const { fake, agent } = fixture;
      const guard: Plugin = { name: 'one-shot', beforeToolCall: () => ({ refuse: 'not now' }) };
      fake.enqueue(httpError(500));
      await expect(withOneShotPlugin(agent, guard, () => agent.send('during'))).rejects.toThrow(/500/);
      fake.enqueue(reply().tool('mkdir', { path: 'after' }), reply().text('done'));
      await agent.send('after');
      expect(fake.requests.at(-1)?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'created folder after' });
    });

    it('use() returns a remover', async () => {
      fixture = await makeAgentFixture();
      const { fake, agent } = fixture;
      const remove = agent.use({ name: 'no', beforeRequest: () => ({ refuse: 'blocked' }) });
      await expect(agent.send('a')).rejects.toThrow('blocked');
      remove();
      fake.enqueue(reply().text('through'));
      expect((await agent.send('b')).text).toBe('through');
    });
  });

  it('sessionId is asked of the recorder each time (R27)', async () => {
    fixture = await makeAgentFixture();
    expect(fixture.agent.sessionId).toBe(fixture.context.currentId);
    const { newId } = await fixture.context.migrate({
      definitionMessages: [],
      breakpoint: { role: 'user', content: '.ai-zen/handoffs/x.md' },
      docPath: '.ai-zen/handoffs/x.md',
    });
    expect(fixture.agent.sessionId).toBe(newId);
  });
});
