// The README calls the summary executor repeatable; its request says how — temperature 0
// and a fixed seed — while the agent's own turns leave sampling to the endpoint.
import { afterEach, describe, expect, it } from 'vitest';
import { reply } from '../support/fake-openai.js';
import { converse, goodDocument, isSummaryCall, makeHarness, type Harness } from './harness.js';

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.dispose();
  harness = null;
});

describe('the summary executor', () => {
  it('asks for temperature 0 and a fixed seed; the agent turns set neither', async () => {
    const h = (harness = await makeHarness());
    await converse(h);
    h.fake.handle((request) => (isSummaryCall(request) ? reply().text(goodDocument('summary')) : undefined));
    const outcome = await h.service.handoff({ mode: 'handoff', executor: 'summary' });
    expect(outcome.executor).toBe('summary');
    const summary = h.fake.requests.find(isSummaryCall)!;
    expect(summary.body).toMatchObject({ temperature: 0, seed: 7 });
    const agentTurn = h.fake.requests[0]!;
    expect(agentTurn.body.temperature).toBeUndefined();
    expect(agentTurn.body.seed).toBeUndefined();
  });
});
