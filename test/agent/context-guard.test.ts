// R14: ContextGuardPlugin refuses a request whose estimated prompt exceeds the window × 1.5,
// or × 2 while the service is busy with a handoff; a refusal sends nothing and loses nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { ContextGuardPlugin } from '../../src/agent/plugins/context-guard.js';
import { AiZenError } from '../../src/errors.js';
import { reply } from '../support/fake-openai.js';
import { makeAgentFixture, shape, type AgentFixture } from './agent-fixture.js';

describe('R14 ContextGuardPlugin', () => {
  let fixture: AgentFixture;
  let busy = false;
  afterEach(async () => {
    busy = false;
    await fixture?.close();
  });
  const setup = async () => {
    fixture = await makeAgentFixture({ maxContextTokens: 1000, plugins: [new ContextGuardPlugin({ isBusy: () => busy })] });
    return fixture;
  };
  const usage = (prompt_tokens: number) => ({ prompt_tokens, completion_tokens: 10, total_tokens: prompt_tokens + 10 });

  it('R14 allows a request up to 1.5× the window', async () => {
    const { agent, fake } = await setup();
    agent.lastUsage = usage(1400);
    fake.enqueue(reply().text('ok'));
    expect((await agent.send('short')).text).toBe('ok');
  });

  it('R14 refuses a request over 1.5× with a clear message; nothing is sent and nothing is lost', async () => {
    const { agent, fake } = await setup();
    agent.lastUsage = usage(1600);
    const before = agent.messages.length;
    const error = await agent.send('one more question').catch((caught: unknown) => caught);
    expect(AiZenError.isInstance(error) && error.code).toBe('context-guard');
    expect((error as Error).message).toMatch(
      /^context guard: the next request would be about \d+ tokens, over 1500 \(1\.5× the 1000-token window\); nothing was sent and nothing is lost/,
    );
    expect(fake.requests).toHaveLength(0);
    expect(agent.messages).toHaveLength(before + 1);
    expect(shape(await fixture.sessionLines())).toEqual(['session', 'system*', 'user']);
  });

  it('R14 counts what was added since the last usage (chars/4)', async () => {
    const { agent, fake } = await setup();
    agent.lastUsage = usage(1400);
    // 1,000 characters ≈ 334 tokens: 1,400 + 334 > 1,500.
    const error = await agent.send('x'.repeat(1000)).catch((caught: unknown) => caught);
    expect(AiZenError.isInstance(error) && error.code).toBe('context-guard');
    expect(fake.requests).toHaveLength(0);
  });

  it('R14 while busy with a handoff allows up to 2×, and refuses above it', async () => {
    const { agent, fake } = await setup();
    busy = true;
    agent.lastUsage = usage(1900);
    fake.enqueue(reply().text('handoff written'));
    expect((await agent.send('write the handoff')).text).toBe('handoff written');
    agent.lastUsage = usage(2100);
    const error = await agent.send('again').catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/over 2000 \(2× the 1000-token window during a handoff\)/);
    busy = false;
    agent.lastUsage = usage(1600);
    await expect(agent.send('not busy any more')).rejects.toThrow(/over 1500/);
  });
});
