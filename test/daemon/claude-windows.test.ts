// §1–2 with the real Claude Code client: the window comes from what the transcript says
// (Claude Code 2.1.332 runs claude-opus-5-5, a 1M model, when no --model is given), and the
// handoff point from handoffAt, handoffAtTokens and where Claude compacts by itself.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { claudeSlug } from '../../src/daemon/sources/claude-code/claude-paths.js';
import type { AnyEvent } from '../../src/events.js';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { claudeTranscripts, makeClaudeHome, runClaude } from '../support/claude-client.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

let fake: FakeAnthropic;
let daemon: DaemonRepo | null = null;

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
});
afterEach(async () => {
  await daemon?.cleanup();
  daemon = null;
});

describe('§1–2 Claude Code windows and thresholds, with the real client', () => {
  test('the default model and --model opus have a 1M window (150k is 15%, no handoff); claude-sonnet-4-6 is 200k (150k is 75%, handed off); handoffAtTokens hands a 1M session off at 160k', async () => {
    const base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-claude-windows-'));
    const claude = await makeClaudeHome(base);
    daemon = await makeDaemonRepo({
      env: claude.env,
      config: { agents: { 'claude-code': { graceSeconds: 0, handoffAtTokens: 160_000 } } },
    });
    await daemon.start();
    const client = await daemon.connect();
    const seen: AnyEvent[] = [];
    await client.subscribe((event: AnyEvent) => seen.push(event));
    const run = async (prompt: string, tokens: number, args: string[]) => {
      fake.enqueue(anthropicReply().text(`${prompt}: done.`).usage({ input_tokens: tokens, output_tokens: 20 }));
      const result = await runClaude(prompt, { cwd: daemon!.root, home: claude, baseURL: fake.baseURL, args });
      expect(result.code, result.stderr).toBe(0);
      const before = new Set(transcripts);
      transcripts = await claudeTranscripts(claude);
      return transcripts.find((file) => !before.has(file))!;
    };
    let transcripts: string[] = [];
    const byDefault = await run('Plan the work', 150_000, []);
    const opus = await run('Review the plan', 170_000, ['--model', 'opus']);
    const sonnet = await run('Fix the parser', 150_000, ['--model', 'claude-sonnet-4-6']);

    // Two handoffs: the 200k session at 75% (over 70%), the opus one at 170k (over handoffAtTokens).
    await waitFor(() => seen.filter((event) => event.name === 'handoff.written').length >= 2, {
      timeoutMs: 30_000,
      message: 'two handoffs',
    });
    const status = await daemon.status();
    const info = (file: string) => status.sessions.find((session) => session.transcript === file)!;
    expect(info(byDefault)).toMatchObject({
      model: 'claude-opus-5-5',
      promptTokens: 150_000,
      maxContextTokens: 1_000_000,
      percent: 15,
      handoffAt: 16,
      overflowed: false,
    });
    expect(info(opus)).toMatchObject({
      model: 'claude-opus-5-5',
      maxContextTokens: 1_000_000,
      percent: 17,
      handoffAt: 16,
      overflowed: true,
    });
    expect(info(sonnet)).toMatchObject({
      model: 'claude-sonnet-4-6',
      maxContextTokens: 200_000,
      percent: 75,
      handoffAt: 70,
      compactsAt: 73,
      overflowed: true,
    });
    const written = seen.filter((event) => event.name === 'handoff.written').map((event) => event.payload as { sessionId: string });
    expect(written.map((payload) => payload.sessionId).sort()).toEqual(
      [path.basename(opus, '.jsonl'), path.basename(sonnet, '.jsonl')].sort(),
    );
    expect(await handoffDocs(daemon.root)).toHaveLength(2);
    // What a person reads: the default-model session at 15% of 1M, handing off at 16%.
    const human = await daemon.daemon(['status']);
    expect(human.stdout).toMatch(/15%\s+150k\/1M/);
    expect(human.stdout).toContain('hands off at 16%');
  }, 120_000);
});

/** A Claude Code transcript line as 2.1.332 writes it (the fields the daemon reads). */
function claudeLine(cwd: string, sessionId: string, line: Record<string, unknown>): string {
  return `${JSON.stringify({ parentUuid: null, isSidechain: false, cwd, sessionId, version: '2.1.332', timestamp: new Date().toISOString(), ...line })}\n`;
}
const ask = (text: string) => ({ type: 'user', message: { role: 'user', content: text } });
let replies = 0;
const reply = (model: string, tokens: number) => ({
  type: 'assistant',
  requestedModel: model,
  message: {
    id: `msg_${(replies += 1)}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: 'ok' }],
    usage: { input_tokens: tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 10 },
  },
});
const compacted = (trigger: string, preTokens: number) => ({
  type: 'system',
  subtype: 'compact_boundary',
  content: 'Conversation compacted',
  compactMetadata: { trigger, preTokens },
});

describe('learned compaction points, in a real daemon', () => {
  test('where Claude compacts a model is learned from its own compaction (auto, preTokens), kept in $AI_ZEN_HOME across a restart, and the handoff kept 3 points below it; a session born while the daemon runs that starts above is handed off at once', async () => {
    const base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-claude-points-'));
    const claude = await makeClaudeHome(base);
    daemon = await makeDaemonRepo({ env: claude.env, config: { agents: { 'claude-code': { graceSeconds: 0 } } } });
    const root = daemon.root;
    const folder = path.join(claude.configDir, 'projects', claudeSlug(root));
    await fs.mkdir(folder, { recursive: true });
    const write = (id: string, ...lines: Record<string, unknown>[]) =>
      fs.appendFile(path.join(folder, `${id}.jsonl`), lines.map((line) => claudeLine(root, id, line)).join(''));
    const [learner, born, other] = [
      '11111111-2222-4333-8444-000000000001',
      '11111111-2222-4333-8444-000000000002',
      '11111111-2222-4333-8444-000000000003',
    ];
    // Claude compacted this 200k session by itself at 130k (65%); a /compact by the person at 100k teaches nothing.
    await write(
      learner,
      ask('Migrate the schema'),
      reply('claude-sonnet-4-6', 100_000),
      compacted('manual', 100_000),
      reply('claude-sonnet-4-6', 130_000),
      compacted('auto', 130_000),
      reply('claude-sonnet-4-6', 20_000),
    );
    await write(other, ask('Look around'), reply('claude-opus-4-6', 40_000));
    await daemon.start();
    const pointsFile = path.join(daemon.env.AI_ZEN_HOME!, 'compaction-points.json');
    await waitFor(async () => (await fs.readFile(pointsFile, 'utf8').catch(() => '')).includes('claude-sonnet-4-6'), {
      timeoutMs: 20_000,
      message: 'the learned point saved',
    });
    const saved = JSON.parse(await fs.readFile(pointsFile, 'utf8'));
    expect(saved.agents['claude-code']['claude-sonnet-4-6']).toEqual([expect.objectContaining({ preTokens: 130_000, window: 200_000 })]);
    // The next reading runs by what was learned; another model keeps the table's point.
    await write(learner, reply('claude-sonnet-4-6', 24_000));
    const sessionOf = async (id: string) => (await daemon!.status()).sessions.find((session) => session.id === id);
    await waitFor(async () => (await sessionOf(learner))?.promptTokens === 24_000, { timeoutMs: 20_000, message: 'the next reading' });
    expect(await sessionOf(learner)).toMatchObject({ compactsAt: 65, handoffAt: 62, overflowed: false });
    expect(await sessionOf(other)).toMatchObject({ compactsAt: 73, handoffAt: 70 });
    // Born while the daemon runs, first reading at 63% (over the learned 62%): handed off as any crossing.
    await write(born, ask('Read the whole schema'), reply('claude-sonnet-4-6', 126_000));
    await waitFor(async () => (await daemon!.status()).handoffs.some((entry) => entry.sessionId === born), {
      timeoutMs: 30_000,
      message: 'the new session handed off at 63%',
    });
    // A restart: what was learned is still known, before any new line.
    expect((await daemon.daemon(['stop'])).code).toBe(0);
    await daemon.start();
    await waitFor(async () => (await sessionOf(learner))?.compactsAt === 65, {
      timeoutMs: 20_000,
      message: 'the learned point after a restart',
    });
    expect(await sessionOf(learner)).toMatchObject({ handoffAt: 62 });
  }, 120_000);
});

const GRACE_SECONDS = 40;

describe('the grace rule as the README states it', () => {
  test('a young session over handoffAt waits out graceSeconds (status says how long), then is handed off with no further reply; one a point short of the compaction point goes at once', async () => {
    const base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-claude-grace-'));
    const claude = await makeClaudeHome(base);
    daemon = await makeDaemonRepo({ env: claude.env, config: { agents: { 'claude-code': { graceSeconds: GRACE_SECONDS } } } });
    const root = daemon.root;
    const folder = path.join(claude.configDir, 'projects', claudeSlug(root));
    await fs.mkdir(folder, { recursive: true });
    await daemon.start();
    const write = (id: string, ...lines: Record<string, unknown>[]) =>
      fs.appendFile(path.join(folder, `${id}.jsonl`), lines.map((line) => claudeLine(root, id, line)).join(''));
    const [young, urgent] = ['22222222-2222-4333-8444-000000000001', '22222222-2222-4333-8444-000000000002'];
    const written = Date.now();
    // 71% of 200k: over 70%, under 95% and short of Claude's 73% − 1.
    await write(young, ask('Port the parser'), reply('claude-sonnet-4-6', 142_000));
    const sessionOf = async (id: string) => (await daemon!.status()).sessions.find((session) => session.id === id);
    // A window long enough that a loaded machine still reads the session inside it.
    await waitFor(async () => (await sessionOf(young))?.action === `started less than ${GRACE_SECONDS} seconds ago: waiting`, {
      timeoutMs: GRACE_SECONDS * 1000 - 1000,
      message: 'the crossing held back by the grace window',
    }).catch(async (error) => {
      console.log(JSON.stringify(await sessionOf(young)), await fs.readFile(path.join(root, '.ai-zen/logs/daemon.log'), 'utf8'));
      throw error;
    });
    expect(await handoffDocs(root)).toEqual([]);
    // 72%: a point short of where Claude compacts — waiting longer would let the compaction win.
    await write(urgent, ask('Port the lexer'), reply('claude-sonnet-4-6', 144_000));
    await waitFor(async () => (await daemon!.status()).handoffs.some((entry) => entry.sessionId === urgent), {
      timeoutMs: 30_000,
      message: 'the urgent session handed off inside its grace window',
    });
    const late = await waitFor(async () => (await daemon!.status()).handoffs.find((entry) => entry.sessionId === young), {
      timeoutMs: GRACE_SECONDS * 1000 + 30_000,
      message: 'the young session handed off once its grace was over',
    });
    expect(Date.parse(late.at) - written).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000);
  }, 180_000);
});
