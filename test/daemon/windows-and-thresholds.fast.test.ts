// §1–2, the pure parts: the model table and the user's entries, the thresholds kept below
// the agent's compaction point, what is learned from compactions (and kept across restarts), and
// the loop guard's targets.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { agentCompactsAt, agentWindow } from '../../src/config/agent-models.js';
import { HandoffLoopGuard } from '../../src/daemon/handoffs/handoff-loop-guard.js';
import { codexRolloutFold } from '../../src/daemon/sources/codex/codex-rollout.js';
import { learnedPoint, loadCompactionPoints, POINTS_FILE } from '../../src/daemon/watching/compaction-points.js';
import { isOverThreshold, sessionThresholds } from '../../src/daemon/watching/session-source.js';
import { foldLines } from '../support/fold-lines.js';
import { memoryLogger } from '../support/memory-logger.js';

const noModels = {};

describe('model windows as data', () => {
  test('Claude: opus-5-5, the aliases, every claude-*-5 and opus 4.7/4.8 are 1M; opus/sonnet 4.6, sonnet 4.5 and unknown models 200k; `[1m]` is 1M', () => {
    const window = (model: string | null, largestReading = 0) =>
      agentWindow('claude-code', model, { configured: null, models: noModels, largestReading });
    for (const model of [
      'claude-opus-5-5',
      'claude-sonnet-5-5',
      'claude-haiku-5-5',
      'opus',
      'sonnet',
      'haiku',
      'claude-opus-4-7',
      'claude-opus-4-8',
    ])
      expect(window(model), model).toBe(1_000_000);
    for (const model of ['claude-opus-4-6', 'claude-sonnet-4-6', 'claude-sonnet-4-5-20250929', 'claude-3-7-sonnet', null])
      expect(window(model), String(model)).toBe(200_000);
    expect(window('claude-sonnet-4-6[1m]')).toBe(1_000_000);
    // A reading above the table's window proves the larger one.
    expect(window('claude-sonnet-4-6', 250_000)).toBe(1_000_000);
  });

  test('the config extends and overrides the table per model (a name or its prefix), and an agent-wide contextWindow wins over all', () => {
    const models = { 'my-model': { contextWindow: 64_000 }, 'claude-opus-5': { contextWindow: 500_000, compactsAt: 60 } };
    expect(agentWindow('claude-code', 'my-model', { configured: null, models })).toBe(64_000);
    expect(agentWindow('claude-code', 'claude-opus-5-5', { configured: null, models })).toBe(500_000);
    expect(agentCompactsAt('claude-code', 'claude-opus-5-5', models, 80)).toBe(60);
    expect(agentWindow('claude-code', 'claude-opus-5-5', { configured: 300_000, models })).toBe(300_000);
    // Codex: what it reports, then the table; the user's entry over both.
    expect(agentWindow('codex', 'gpt-5.3-codex', { configured: null, models: noModels, reported: 400_000 })).toBe(400_000);
    expect(agentWindow('codex', 'gpt-5.3-codex', { configured: null, models: noModels, reported: null })).toBe(258_400);
    expect(
      agentWindow('codex', 'gpt-5.3-codex', { configured: null, models: { 'gpt-5.3': { contextWindow: 100_000 } }, reported: 400_000 }),
    ).toBe(100_000);
  });
});

describe('thresholds relative to the compaction point', () => {
  test('handoffAt stays 3 points below compactsAt, never above 100%, and handoffAtTokens lowers it (the lower point wins)', () => {
    expect(sessionThresholds({ handoffAt: 70, warnAt: 60, compactsAt: 73, handoffAtTokens: null, window: 200_000 }).handoffAt).toBe(70);
    expect(sessionThresholds({ handoffAt: 90, warnAt: 60, compactsAt: 73, handoffAtTokens: null, window: 200_000 }).handoffAt).toBe(70);
    expect(sessionThresholds({ handoffAt: 100, warnAt: 60, compactsAt: null, handoffAtTokens: null, window: 200_000 }).handoffAt).toBe(100);
    const tokens = sessionThresholds({ handoffAt: 70, warnAt: 60, compactsAt: 73, handoffAtTokens: 150_000, window: 1_000_000 });
    expect(tokens).toMatchObject({ handoffAt: 15, handoffAtTokens: 150_000 });
    // The warning keeps its distance: 60 of 70 → 12 of 15.
    expect(tokens.warnAt).toBe(12);
    const base = { closed: false, otherRepo: false, maxContextTokens: 1_000_000, thresholds: tokens };
    expect(isOverThreshold({ ...base, latestUsage: { prompt_tokens: 149_999, completion_tokens: 0, total_tokens: 0 } })).toBe(false);
    expect(isOverThreshold({ ...base, latestUsage: { prompt_tokens: 150_000, completion_tokens: 0, total_tokens: 0 } })).toBe(true);
  });

  test('the learned point is the lowest of the latest five native compactions; a manual one or one below half the window teaches nothing; it is kept in $AI_ZEN_HOME across restarts', async () => {
    expect(learnedPoint([])).toBeNull();
    const at = (n: number) => `2026-12-03T10:0${n}:00.000Z`;
    expect(
      learnedPoint([
        { at: at(1), preTokens: 166_000, window: 200_000 },
        { at: at(2), preTokens: 146_500, window: 200_000 },
        { at: at(3), preTokens: 40_000, window: 200_000 },
      ]),
    ).toBe(73);
    const home = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-points-'));
    const { logger } = memoryLogger();
    const points = await loadCompactionPoints({ home, logger, repo: '/work/a' });
    expect(points.observe('claude-code', 'claude-sonnet-4-6', { at: at(1), preTokens: 150_000, window: 200_000, trigger: 'manual' })).toBe(
      false,
    );
    expect(points.observe('claude-code', 'claude-sonnet-4-6', { at: at(2), preTokens: 60_000, window: 200_000, trigger: 'auto' })).toBe(
      false,
    );
    expect(points.observe('claude-code', 'claude-sonnet-4-6', { at: at(3), preTokens: 146_000, window: 200_000, trigger: 'auto' })).toBe(
      true,
    );
    expect(points.observe('claude-code', 'claude-sonnet-4-6', { at: at(3), preTokens: 146_000, window: 200_000, trigger: 'auto' })).toBe(
      false,
    );
    expect(points.observe('codex', 'gpt-5.3-codex', { at: at(4), preTokens: 233_000, window: 258_400 })).toBe(true);
    expect(points.pointFor('claude-code', 'claude-sonnet-4-6')).toBe(73);
    expect(points.pointFor('claude-code', 'claude-opus-5-5')).toBeNull();
    await points.flushed();
    // Another project's daemon learned meanwhile: a save merges, it never drops what is on disk.
    const other = await loadCompactionPoints({ home, logger, repo: '/work/b' });
    other.observe('claude-code', 'claude-opus-5-5', { at: at(5), preTokens: 700_000, window: 1_000_000, trigger: 'auto' });
    await other.flushed();
    points.observe('claude-code', 'claude-sonnet-4-6', { at: at(6), preTokens: 140_000, window: 200_000, trigger: 'auto' });
    await points.flushed();
    const restarted = await loadCompactionPoints({ home, logger, repo: '/work/a' });
    expect(restarted.pointFor('claude-code', 'claude-sonnet-4-6')).toBe(70);
    // One other repo's compaction is that repo's point, not this one's.
    expect(restarted.pointFor('claude-code', 'claude-opus-5-5')).toBeNull();
    expect((await loadCompactionPoints({ home, logger, repo: '/work/b' })).pointFor('claude-code', 'claude-opus-5-5')).toBe(70);
    expect(restarted.pointFor('codex', 'gpt-5.3-codex')).toBe(90);
    // A file ai-zen did not write: one warning, learning starts over, nothing thrown.
    await fs.writeFile(path.join(home, POINTS_FILE), '{"version": 7}');
    const warned = memoryLogger();
    expect(
      (await loadCompactionPoints({ home, logger: warned.logger, repo: '/work/a' })).pointFor('claude-code', 'claude-sonnet-4-6'),
    ).toBeNull();
    expect(warned.at('warn').some((record) => record.msg.includes(POINTS_FILE))).toBe(true);
    await fs.rm(home, { recursive: true, force: true });
  });

  test('Codex: the context just before its own compaction is recorded (the reading before the zero reading)', () => {
    const line = (payload: unknown) => JSON.stringify({ timestamp: '2026-12-03T10:00:00.000Z', type: 'event_msg', payload });
    const reading = (total: number, zero = false) =>
      line({
        type: 'token_count',
        info: {
          last_token_usage: zero
            ? { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0, total_tokens: total }
            : { input_tokens: total - 100, cached_input_tokens: 0, output_tokens: 100, reasoning_output_tokens: 0, total_tokens: total },
          model_context_window: 258_400,
        },
      });
    const { state, skips } = foldLines(codexRolloutFold, '/codex/rollout-x.jsonl', [
      reading(200_000),
      reading(236_000),
      reading(12_000, true),
    ]);
    expect(skips).toEqual([]);
    expect(state.compactions).toBe(1);
    expect(state.lastCompaction?.preTokens).toBe(236_000);
  });

  test('the loop guard never shows a target above the compaction point or 100% ("hands off once it reaches 106%" was seen); the grace window holds below 95% and a point short of the compaction point', () => {
    const guard = new HandoffLoopGuard(120_000);
    const now = Date.parse('2026-12-03T10:00:00.000Z');
    const old = now - 3_600_000;
    const first = guard.check({ file: 'a', percent: 96, handoffAt: 70, compactsAt: null, startedAtMs: old, firstSeen: true, nowMs: now });
    expect(first).toMatchObject({ go: false });
    expect((first as { reason: string }).reason).toBe('first seen at 96%, already over 70%: hands off once it reaches 99%');
    expect(
      guard.check({ file: 'a', percent: 99, handoffAt: 70, compactsAt: null, startedAtMs: old, firstSeen: false, nowMs: now }),
    ).toEqual({ go: true });
    const codex = guard.check({ file: 'b', percent: 88, handoffAt: 70, compactsAt: 95, startedAtMs: old, firstSeen: true, nowMs: now });
    expect((codex as { reason: string }).reason).toContain('hands off once it reaches 94%');
    const noRoom = guard.check({ file: 'c', percent: 72, handoffAt: 70, compactsAt: 73, startedAtMs: old, firstSeen: true, nowMs: now });
    expect((noRoom as { reason: string }).reason).toBe('first seen at 72%, already over 70%: hands off once it grows');
    expect(guard.check({ file: 'c', percent: 73, handoffAt: 70, compactsAt: 73, startedAtMs: old, firstSeen: false, nowMs: now })).toEqual({
      go: true,
    });
    // Grace: a young session waits under 95%, says how long it waits, and goes a point short of where the agent compacts.
    const young = now - 10_000;
    const waits = guard.check({
      file: 'd',
      percent: 71,
      handoffAt: 70,
      compactsAt: 95,
      startedAtMs: young,
      firstSeen: false,
      nowMs: now,
      graceMs: 30_000,
    });
    expect(waits).toMatchObject({ go: false, reason: 'started less than 30 seconds ago: waiting', retryAtMs: young + 30_000 });
    expect(
      guard.check({ file: 'd', percent: 96, handoffAt: 70, compactsAt: null, startedAtMs: young, firstSeen: false, nowMs: now }),
    ).toEqual({ go: true });
    expect(
      guard.check({ file: 'e', percent: 71, handoffAt: 70, compactsAt: 73, startedAtMs: young, firstSeen: false, nowMs: now }),
    ).toMatchObject({
      go: false,
    });
    expect(
      guard.check({ file: 'e', percent: 72, handoffAt: 70, compactsAt: 73, startedAtMs: young, firstSeen: false, nowMs: now }),
    ).toEqual({ go: true });
  });
});
