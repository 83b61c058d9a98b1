// The price table: what resuming a session handed off while idle re-writes, in dollars, for Claude
// Code's default models; the user's correction in config, field by field; no made-up price for a
// model nobody priced. Read through the config loader, as the daemon reads it.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { formatDollars, pricesOf, rewriteDollars, usageDollars } from '../../src/config/model-prices.js';
import { idleReturnChoice, idleReturnWords } from '../../src/daemon/handoffs/idle-return.js';
import { notificationFor } from '../../src/daemon/side-channels/daemon-notifications.js';

describe('the price table', () => {
  let base: string;
  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-prices-')));
    await fs.mkdir(path.join(base, 'project', '.ai-zen'), { recursive: true });
    await fs.mkdir(path.join(base, 'home'), { recursive: true });
  });
  afterEach(async () => {
    await fs.rm(base, { recursive: true, force: true });
  });
  const modelsFrom = async (user: unknown) => {
    await fs.writeFile(path.join(base, 'home', 'config.json'), JSON.stringify(user));
    const config = await loadConfig({ root: path.join(base, 'project'), env: { AI_ZEN_HOME: path.join(base, 'home') } });
    return config.agents['claude-code'].models;
  };

  it("prices Claude Code's default models: a 412k re-write to the 1-hour cache of Opus 5.5 is $3.30", () => {
    const opus = pricesOf('claude-code', 'claude-opus-5-5', 412_000, {});
    expect(rewriteDollars(opus, 412_000, 60)).toBeCloseTo(3.296, 6);
    expect(rewriteDollars(opus, 412_000, 5)).toBeCloseTo(2.06, 6);
    // The alias, a dated id and the 1M variant take the same row.
    expect(pricesOf('claude-code', 'opus', 1, {})).toEqual(opus);
    expect(pricesOf('claude-code', 'claude-opus-5-5-20260920', 1, {})).toEqual(opus);
    expect(pricesOf('claude-code', 'claude-opus-5-5[1m]', 1, {})).toEqual(opus);
    expect(rewriteDollars(pricesOf('claude-code', 'claude-sonnet-5-5', 0, {}), 1_000_000, 60)).toBe(4);
    // Haiku 5.5 costs five times more for a prompt over 100k tokens.
    expect(rewriteDollars(pricesOf('claude-code', 'claude-haiku-5-5', 90_000, {}), 90_000, 60)).toBeCloseTo(0.018, 6);
    expect(rewriteDollars(pricesOf('claude-code', 'claude-haiku-5-5', 200_000, {}), 200_000, 60)).toBeCloseTo(0.2, 6);
  });

  it('a model nobody priced has no price, and says tokens only', () => {
    expect(rewriteDollars(pricesOf('claude-code', 'some-proxy-model', 300_000, {}), 300_000, 60)).toBeNull();
    expect(rewriteDollars(pricesOf('claude-code', null, 300_000, {}), 300_000, 60)).toBeNull();
    expect(rewriteDollars(pricesOf('codex', 'gpt-5', 300_000, {}), 300_000, 60)).toBeNull();
    expect(idleReturnChoice({ freshTokens: 21_500, resumeTokens: 300_000, resumeDollars: null }, '/clear')).toBe(
      '/clear continues fresh (~22k tokens); resuming this session re-writes ~300k tokens',
    );
  });

  it("the user's config corrects a price field by field, and prices a model the table lacks", async () => {
    const models = await modelsFrom({
      agents: {
        'claude-code': {
          models: { 'claude-opus-5-5': { prices: { cacheWrite1h: 9 } }, 'my-proxy-model': { prices: { cacheWrite1h: 2, input: 1 } } },
        },
      },
    });
    const opus = pricesOf('claude-code', 'claude-opus-5-5', 100_000, models);
    expect(opus).toMatchObject({ input: 4, cacheWrite1h: 9, cacheRead: 0.2 });
    expect(rewriteDollars(opus, 100_000, 60)).toBeCloseTo(0.9, 6);
    expect(rewriteDollars(pricesOf('claude-code', 'my-proxy-model', 100_000, models), 100_000, 60)).toBeCloseTo(0.2, 6);
    // Only the prices given: what needs another is not priced.
    expect(
      usageDollars(pricesOf('claude-code', 'my-proxy-model', 1, models), {
        input: 1,
        output: 1,
        cacheWrite5m: 0,
        cacheWrite1h: 0,
        cacheRead: 0,
      }),
    ).toBeNull();
  });

  it('refuses a price that is not a number of dollars, in one line naming it', async () => {
    await expect(modelsFrom({ agents: { 'claude-code': { models: { opus: { prices: { input: -1 } } } } } })).rejects.toThrow(
      /prices\.input/,
    );
    await expect(modelsFrom({ agents: { 'claude-code': { models: { opus: { prices: { inptu: 1 } } } } } })).rejects.toThrow(/inptu/);
  });

  it('prices a measured usage: what a fork that read the warm cache cost', () => {
    const opus = pricesOf('claude-code', 'claude-opus-5-5', 400_000, {});
    const usage = { input: 2_000, output: 3_000, cacheWrite5m: 0, cacheWrite1h: 2_000, cacheRead: 400_000 };
    expect(usageDollars(opus, usage)).toBeCloseTo(0.008 + 0.06 + 0.016 + 0.08, 6);
    expect(formatDollars(0.164)).toBe('$0.16');
    expect(formatDollars(0.0042)).toBe('$0.004');
  });
});

describe('what the person who comes back is told', () => {
  const choice = { document: '.ai-zen/handoffs/x.md', freshTokens: 21_700, resumeTokens: 412_000, resumeDollars: 3.296 };

  it('the document, /clear with what it starts with, and what resuming re-writes at the price', () => {
    expect(idleReturnWords(choice, '/clear')).toBe(
      'handed off while idle → .ai-zen/handoffs/x.md; /clear continues fresh (~22k tokens); resuming this session re-writes ~412k tokens (~$3.30)',
    );
  });

  it('the notification says the same', () => {
    const { document, ...idleReturn } = choice;
    const notification = notificationFor(
      {
        name: 'handoff.written',
        payload: {
          sessionId: '1a2b3c4d-0000-4000-8000-000000000000',
          mode: 'handoff',
          path: document,
          absolutePath: `/repo/${document}`,
          executor: 'offline',
          cost: { requests: 0, prompt_tokens: 0, completion_tokens: 0 },
          agent: 'claude-code',
          successorCommand: 'claude "Read …"',
          percent: 41,
          trigger: 'idle',
          idleReturn,
        },
      },
      { commit: { state: 'committed', commit: 'abcdef1234' } },
    );
    expect(notification?.body).toBe(
      'Claude Code session 1a2b3c4d handed off while idle → .ai-zen/handoffs/x.md; /clear continues fresh (~22k tokens); resuming this session re-writes ~412k tokens (~$3.30) (or start fresh with: claude "Read …") — committed abcdef1',
    );
  });
});
