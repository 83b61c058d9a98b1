import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ContextGuardPlugin } from '../../src/agent/plugins/context-guard.js';
import { AutoMigratePlugin, type OverflowInfo } from '../../src/handoff/auto-migrate.js';
import type { ExecutorName } from '../../src/session/format.js';
import { reply } from '../support/fake-openai.js';
import { goodDocument, isSummaryCall, makeHarness, selfModel, type Harness } from './harness.js';

let harness: Harness | null = null;

afterEach(async () => {
  await harness?.dispose();
  harness = null;
});

const MAX = 10_000;

function install(h: Harness, answers: (ExecutorName | 'skip')[]) {
  const asked: OverflowInfo[] = [];
  const plugin = new AutoMigratePlugin({
    service: h.service,
    choose: async (info) => {
      asked.push(info);
      return answers.shift() ?? 'skip';
    },
    events: h.bus,
  });
  h.agent.use(plugin);
  return { plugin, asked };
}

describe('AutoMigratePlugin (R15, R19, R20)', () => {
  it('R19 skip leaves the history alone, and it asks again after the next reply while still over', async () => {
    harness = await makeHarness({ maxContextTokens: MAX });
    const h = harness;
    const { plugin, asked } = install(h, ['skip', 'skip']);
    h.fake.enqueue(
      reply()
        .text('big answer')
        .usage({ prompt_tokens: MAX + 1, completion_tokens: 5 }),
    );
    await h.agent.send('first');
    expect(plugin.pending).toMatchObject({ promptTokens: MAX + 1, maxContextTokens: MAX });
    const messages = [...h.agent.messages];
    const id = h.context.currentId;

    expect(await plugin.afterTurn()).toMatchObject({ action: 'skipped' });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toEqual({ sessionId: id, promptTokens: MAX + 1, maxContextTokens: MAX, defaultExecutor: 'self' });
    expect(h.agent.messages).toEqual(messages);
    expect(h.context.currentId).toBe(id);
    expect(await plugin.afterTurn()).toEqual({ action: 'none' });
    expect(asked).toHaveLength(1);

    h.fake.enqueue(
      reply()
        .text('another')
        .usage({ prompt_tokens: MAX + 50, completion_tokens: 5 }),
    );
    await h.agent.send('second');
    expect(await plugin.afterTurn()).toMatchObject({ action: 'skipped' });
    expect(asked).toHaveLength(2);
    expect(h.events.filter((event) => event.name === 'session.overflowed')).toHaveLength(2);
  });

  it('R19 under the limit nothing is asked', async () => {
    harness = await makeHarness({ maxContextTokens: MAX });
    const { plugin, asked } = install(harness, ['self']);
    harness.fake.enqueue(reply().text('small').usage({ prompt_tokens: MAX, completion_tokens: 5 }));
    await harness.agent.send('hi');
    expect(await plugin.afterTurn()).toEqual({ action: 'none' });
    expect(asked).toHaveLength(0);
  });

  it('R15 R19 the chosen executor migrates after the turn; the handoff turn, over the limit too, triggers nothing', async () => {
    harness = await makeHarness({ maxContextTokens: MAX });
    const h = harness;
    const { plugin, asked } = install(h, ['self', 'self']);
    h.fake.handle(
      selfModel((docPath) =>
        reply()
          .tool('write', { path: docPath, content: goodDocument() })
          .usage({ prompt_tokens: MAX + 500, completion_tokens: 100 }),
      ),
    );
    h.fake.enqueue(
      reply()
        .text('the answer')
        .usage({ prompt_tokens: MAX + 1, completion_tokens: 5 }),
    );
    const oldId = h.context.currentId;
    await h.agent.send('a question');
    // Nothing happened inside the turn.
    expect(h.context.currentId).toBe(oldId);

    const result = await plugin.afterTurn();
    expect(result.action).toBe('migrated');
    expect(asked).toHaveLength(1);
    expect(plugin.pending).toBeNull();
    expect(h.context.currentId).not.toBe(oldId);
    expect(h.agent.lastUsage).toBeNull();
    expect(await plugin.afterTurn()).toEqual({ action: 'none' });
    if (result.action === 'migrated') expect((await fs.stat(path.join(h.root, result.outcome.path))).size).toBeGreaterThanOrEqual(400);
  });

  it('R19 the summary choice migrates with the summary executor', async () => {
    harness = await makeHarness({ maxContextTokens: MAX });
    const h = harness;
    const { plugin } = install(h, ['summary']);
    h.fake.handle((request) => (isSummaryCall(request) ? reply().text(goodDocument('summary')) : undefined));
    h.fake.enqueue(
      reply()
        .text('the answer')
        .usage({ prompt_tokens: MAX + 1, completion_tokens: 5 }),
    );
    await h.agent.send('a question');
    const result = await plugin.afterTurn();
    expect(result).toMatchObject({ action: 'migrated', outcome: { executor: 'summary', mode: 'migrate' } });
  });

  it('R20 without a chooser the default executor is used, without asking', async () => {
    harness = await makeHarness({ maxContextTokens: MAX, model: false, defaultExecutor: 'offline' });
    const h = harness;
    const plugin = new AutoMigratePlugin({ service: h.service });
    // No model: feed the plugin the response the agent would have seen.
    plugin.afterResponse(
      { message: { role: 'assistant', content: 'x' }, usage: { prompt_tokens: MAX + 1, completion_tokens: 1, total_tokens: MAX + 2 } },
      h.agent,
    );
    const result = await plugin.afterTurn();
    expect(result).toMatchObject({ action: 'migrated', outcome: { executor: 'offline' } });
  });

  it('R14 while the service is busy the handoff turn may go up to ×2 of the window; otherwise ×1.5 refuses', async () => {
    harness = await makeHarness({ maxContextTokens: MAX });
    const h = harness;
    h.agent.use(new ContextGuardPlugin({ isBusy: () => h.service.busy }));
    h.fake.enqueue(reply().text('answer').usage({ prompt_tokens: 16_000, completion_tokens: 5 }));
    await h.agent.send('q');
    // Nothing queued for it: the guard refuses before any request is made.
    const sent = h.fake.requests.length;
    await expect(h.agent.send('one more')).rejects.toMatchObject({ code: 'context-guard' });
    expect(h.fake.requests.length).toBe(sent);

    h.fake.handle(
      selfModel((docPath) =>
        reply().tool('write', { path: docPath, content: goodDocument() }).usage({ prompt_tokens: 17_000, completion_tokens: 100 }),
      ),
    );
    const outcome = await h.service.handoff({ mode: 'migrate' });
    expect(outcome.executor).toBe('self');
  });
});
