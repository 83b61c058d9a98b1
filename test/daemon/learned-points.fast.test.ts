// Learning only what is true about where an agent compacts: a compaction the API forced, a
// transcript stamped in the future, or one repo's crafted transcripts must not move every repo's
// handoffs; and what was learned can be forgotten without being learned back from old transcripts.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { claudeAgent } from '../../src/daemon/sources/claude-code/claude-agent.js';
import { claudeSlug } from '../../src/daemon/sources/claude-code/claude-paths.js';
import { forgetLearned, loadCompactionPoints, POINTS_FILE } from '../../src/daemon/watching/compaction-points.js';
import { memoryLogger } from '../support/memory-logger.js';
import { DEFAULT_AGENT_CONFIG } from '../support/agent-config.js';

const CONFIG = DEFAULT_AGENT_CONFIG;
const MODEL = 'claude-sonnet-4-6';
const NOW = Date.parse('2026-12-04T12:00:00.000Z');

let home: string;
beforeEach(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-learned-'));
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

const points = (repo: string, now = () => NOW) => loadCompactionPoints({ home, logger: memoryLogger().logger, repo, now });
const compaction = (at: string, percent: number, trigger: string | null = 'auto') => ({
  at,
  preTokens: percent * 2_000,
  window: 200_000,
  trigger,
});

describe('where an agent compacts, learned only from what is true', () => {
  test('a compaction right after "prompt is too long" is reactive: Claude did not choose it, and it teaches nothing', async () => {
    const root = '/work/repo';
    const folder = path.join(home, 'claude', 'projects', claudeSlug(root));
    await fs.mkdir(folder, { recursive: true });
    const file = path.join(folder, '11111111-2222-4333-8444-555555555555.jsonl');
    const line = (value: object) => JSON.stringify({ sessionId: '11111111-2222-4333-8444-555555555555', cwd: root, ...value });
    await fs.writeFile(
      file,
      [
        line({ type: 'user', timestamp: '2026-12-04T10:00:00.000Z', message: { role: 'user', content: 'go on' } }),
        line({
          type: 'assistant',
          timestamp: '2026-12-04T10:00:01.000Z',
          isApiErrorMessage: true,
          message: { id: 'err-1', model: '<synthetic>', content: [{ type: 'text', text: 'Prompt is too long' }] },
        }),
        line({
          type: 'system',
          subtype: 'compact_boundary',
          timestamp: '2026-12-04T10:00:02.000Z',
          compactMetadata: { trigger: 'auto', preTokens: 130_000 },
        }),
      ].join('\n') + '\n',
    );
    const source = claudeAgent.createSource({ root, env: { CLAUDE_CONFIG_DIR: path.join(home, 'claude') }, config: CONFIG });
    const { state } = await source.createReader(file).update();
    expect(state.lastCompaction).toMatchObject({ trigger: 'reactive', preTokens: 130_000 });
    const learned = await points(root);
    expect(
      learned.observe('claude-code', MODEL, { at: state.lastCompaction!.at!, preTokens: 130_000, window: 200_000, trigger: 'reactive' }),
    ).toBe(false);
    expect(learned.pointFor('claude-code', MODEL)).toBeNull();
  });

  test('compactions stamped in the year 9991 teach nothing, and later real ones are learned', async () => {
    const learned = await points('/work/a');
    for (let minute = 0; minute < 5; minute++)
      expect(learned.observe('claude-code', MODEL, compaction(`9991-01-01T00:0${minute}:00.000Z`, 50))).toBe(false);
    expect(learned.observe('claude-code', MODEL, compaction('2026-12-04T11:00:00.000Z', 73))).toBe(true);
    expect(learned.pointFor('claude-code', MODEL)).toBe(73);
    await learned.flushed();
  });

  test("one repo's transcripts set that repo's point only; two repos that saw it set it for the others", async () => {
    const hostile = await points('/work/cloned');
    for (let minute = 0; minute < 5; minute++) hostile.observe('claude-code', MODEL, compaction(`2026-12-04T10:0${minute}:00.000Z`, 50));
    await hostile.flushed();
    expect(hostile.pointFor('claude-code', MODEL)).toBe(50);
    expect((await points('/work/mine')).pointFor('claude-code', MODEL)).toBeNull();
    const second = await points('/work/second');
    second.observe('claude-code', MODEL, compaction('2026-12-04T11:00:00.000Z', 73));
    await second.flushed();
    // Two repos: the higher of the two points, so the lying one does not pull it down.
    expect((await points('/work/mine')).pointFor('claude-code', MODEL)).toBe(73);
  });

  test('forgotten means forgotten: the running daemon drops it, and reading the old transcript again does not learn it back', async () => {
    let now = NOW;
    const learned = await points('/work/a', () => now);
    expect(learned.observe('claude-code', MODEL, compaction('2026-12-04T11:00:00.000Z', 62))).toBe(true);
    await learned.flushed();
    expect(learned.pointFor('claude-code', MODEL)).toBe(62);
    now += 60_000;
    expect(await forgetLearned(home, memoryLogger().logger, { agent: 'claude-code' }, () => now)).toBe(1);
    now += 60_000;
    learned.pointFor('claude-code', MODEL); // notices the file changed and reads it again
    await learned.flushed();
    expect(learned.pointFor('claude-code', MODEL)).toBeNull();
    expect(learned.observe('claude-code', MODEL, compaction('2026-12-04T11:00:00.000Z', 62))).toBe(false);
    // A compaction after the forgetting is learned as usual.
    expect(learned.observe('claude-code', MODEL, compaction('2026-12-04T12:01:30.000Z', 74))).toBe(true);
    expect(learned.pointFor('claude-code', MODEL)).toBe(74);
    await learned.flushed();
    const file = JSON.parse(await fs.readFile(path.join(home, POINTS_FILE), 'utf8')) as { forgotten: Record<string, unknown> };
    expect(Object.keys(file.forgotten)).toEqual(['claude-code']);
  });
});
