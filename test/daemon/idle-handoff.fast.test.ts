// The idle handoff's decisions as tables: where a Claude Code session's turn stands, read from
// transcripts the real client wrote (bench/fixtures/transcripts/claude-code); when it is idle and for
// how long; and the crossing's step, which writes one offline document per idle stretch.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { resolveAgentsConfig, type IdleHandoffConfig } from '../../src/config/agents-config.js';
import { ConfigFile } from '../../src/config/config-schema.js';
import { clockTime, IDLE_REASON, newCrossing, step, type CrossingAgent } from '../../src/daemon/handoffs/foreign-crossing.js';
import { claudeCacheMinutesFromEnv, planIdle } from '../../src/daemon/handoffs/idle-handoff.js';
import { emptyClaudeState, foldClaudeLine } from '../../src/daemon/sources/claude-code/claude-fold.js';
import type { SessionState, SessionTurn } from '../../src/daemon/watching/session-source.js';

const TRANSCRIPTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'fixtures', 'transcripts', 'claude-code');
const ROOT = '/work/repo';
const FOLD = { root: ROOT, handoffAt: 70, warnAt: 60, handoffAtTokens: null, contextWindow: null, models: {} };

/** The recorded transcript's lines, its {{ROOT}} made this repo, folded as the daemon folds them. */
function recorded(name: string): string[] {
  return readFileSync(path.join(TRANSCRIPTS, name), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.replaceAll('{{ROOT}}', ROOT));
}
function fold(lines: readonly string[]): SessionState {
  let state = emptyClaudeState(`/claude/projects/x/${'e'.repeat(8)}-0000-4000-8000-000000000000.jsonl`, FOLD);
  lines.forEach((text, index) => {
    const next = foldClaudeLine(state, { text, offset: index, lineNumber: index + 1 } as never, FOLD);
    if (typeof next !== 'string') state = next;
  });
  return state;
}

const ON: IdleHandoffConfig = {
  enabled: true,
  minTokens: 150_000,
  afterMinutes: null,
  cacheMinutes: null,
  executor: 'offline',
  forkTimeoutSeconds: 300,
};
const REPLY_AT = Date.parse('2026-12-05T12:00:00.000Z');
function idleSession(turn: Partial<SessionTurn> = {}, tokens = 400_000): SessionState {
  const state = emptyClaudeState('/claude/projects/x/s.jsonl', FOLD);
  return {
    ...state,
    latestUsage: { prompt_tokens: tokens, completion_tokens: 10, total_tokens: tokens + 10 },
    turn: {
      lastReplyAt: new Date(REPLY_AT).toISOString(),
      lastReplyId: 'msg_1',
      runningToolIds: [],
      awaitingReply: false,
      cacheMinutes: 60,
      ...turn,
    },
  };
}
const plan = (state: SessionState, settings: IdleHandoffConfig | null = ON, seen: number | null = REPLY_AT, env: 5 | 60 | null = null) =>
  planIdle({ state, settings, label: 'Claude Code', environmentCacheMinutes: env, replySeenAt: seen });

describe('where a Claude Code turn stands, from transcripts the real client wrote', () => {
  const lines = recorded('http-server.jsonl');
  const parsed = lines.map((line) => JSON.parse(line) as Record<string, any>);
  const mainAssistant = parsed.map((line, index) => ({ line, index })).filter(({ line }) => line.type === 'assistant' && !line.isSidechain);

  test('a finished session: its last reply is the last assistant line, nothing runs, no reply is awaited', () => {
    const turn = fold(lines).turn!;
    const last = mainAssistant.at(-1)!.line;
    expect(turn).toMatchObject({ lastReplyAt: last.timestamp, lastReplyId: last.message.id, runningToolIds: [], awaitingReply: false });
  });

  test('cut right after a reply that calls a tool: the tool is running until its result is read', () => {
    const call = mainAssistant.find(({ line }) => (line.message.content as any[]).some((part) => part.type === 'tool_use'))!;
    const id = (call.line.message.content as any[]).find((part) => part.type === 'tool_use').id;
    expect(fold(lines.slice(0, call.index + 1)).turn!.runningToolIds).toEqual([id]);
    const result = parsed.findIndex(
      (line, index) => index > call.index && JSON.stringify(line.message?.content ?? '').includes(`"tool_use_id":"${id}"`),
    );
    const after = fold(lines.slice(0, result + 1)).turn!;
    expect(after.runningToolIds).toEqual([]);
    // The result went back to the model: mid-turn until its reply.
    expect(after.awaitingReply).toBe(true);
  });

  test('cut right after the first prompt: mid-turn, no reply yet', () => {
    const prompt = parsed.findIndex((line) => line.type === 'user' && typeof line.message?.content === 'string');
    expect(fold(lines.slice(0, prompt + 1)).turn).toMatchObject({ lastReplyAt: null, awaitingReply: true });
  });

  test('the cache lifetime is what the API reported writing to; a reply that wrote nothing keeps the last known', () => {
    const last = mainAssistant.at(-1)!;
    const withCache = (minutes: '1h' | '5m') => {
      const line = structuredClone(last.line);
      line.message.usage.cache_creation = {
        ephemeral_1h_input_tokens: minutes === '1h' ? 9000 : 0,
        ephemeral_5m_input_tokens: minutes === '5m' ? 9000 : 0,
      };
      line.message.id = `${line.message.id}-${minutes}`;
      return JSON.stringify(line);
    };
    // The recorded client writes both counts as 0 when the API sent none: unknown.
    expect(fold(lines).turn!.cacheMinutes).toBeNull();
    expect(fold([...lines, withCache('1h')]).turn!.cacheMinutes).toBe(60);
    expect(fold([...lines, withCache('5m')]).turn!.cacheMinutes).toBe(5);
    expect(fold([...lines, withCache('1h'), lines.at(-1)!.replace(last.line.message.id, 'msg_later')]).turn!.cacheMinutes).toBe(60);
  });

  test('a question to the person (AskUserQuestion) waits on them: it is idle, not a running tool; Esc ends the turn', () => {
    const last = mainAssistant.at(-1)!.line;
    const ask = {
      ...last,
      message: { ...last.message, id: 'msg_ask', content: [{ type: 'tool_use', id: 'toolu_ask', name: 'AskUserQuestion', input: {} }] },
    };
    expect(fold([...lines, JSON.stringify(ask)]).turn).toMatchObject({ runningToolIds: [], awaitingReply: false, lastReplyId: 'msg_ask' });
    const bash = {
      ...ask,
      message: { ...ask.message, id: 'msg_bash', content: [{ type: 'tool_use', id: 'toolu_b', name: 'Bash', input: {} }] },
    };
    const esc = {
      type: 'user',
      isSidechain: false,
      message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] },
    };
    expect(fold([...lines, JSON.stringify(bash)]).turn!.runningToolIds).toEqual(['toolu_b']);
    expect(fold([...lines, JSON.stringify(bash), JSON.stringify(esc)]).turn).toMatchObject({ runningToolIds: [], awaitingReply: false });
  });
});

describe('when an idle session is handed off', () => {
  test('a 1-hour cache: 45 minutes after the last reply, well before Claude Code compacts it itself (~54 min)', () => {
    expect(plan(idleSession())).toMatchObject({ state: 'waiting', at: REPLY_AT + 45 * 60_000, cacheMinutes: 60 });
  });

  test('a 5-minute cache: never by default (a re-write costs about what a document does); an explicit afterMinutes wins', () => {
    expect(plan(idleSession({ cacheMinutes: 5 }))).toEqual({
      state: 'off',
      why: '5-minute cache: a re-write costs about what a document does',
    });
    expect(plan(idleSession({ cacheMinutes: 5 }), { ...ON, afterMinutes: 3 })).toMatchObject({ state: 'waiting', at: REPLY_AT + 180_000 });
    expect(plan(idleSession({ cacheMinutes: 60 }), { ...ON, afterMinutes: 20 })).toMatchObject({ at: REPLY_AT + 20 * 60_000 });
  });

  test('the cache lifetime from the transcript, else the environment, else the setting; unknown: nothing', () => {
    const unknown = idleSession({ cacheMinutes: null });
    expect(plan(unknown).state).toBe('off');
    expect(plan(unknown, ON, REPLY_AT, 60)).toMatchObject({ state: 'waiting', cacheMinutes: 60 });
    expect(plan(unknown, { ...ON, cacheMinutes: 60 })).toMatchObject({ state: 'waiting', cacheMinutes: 60 });
    expect(plan(idleSession({ cacheMinutes: 5 }), ON, REPLY_AT, 60).state).toBe('off');
    expect(claudeCacheMinutesFromEnv({ ENABLE_PROMPT_CACHING_1H: '1' })).toBe(60);
    expect(claudeCacheMinutesFromEnv({ ENABLE_PROMPT_CACHING_1H: '1', FORCE_PROMPT_CACHING_5M: '1' })).toBe(5);
    expect(claudeCacheMinutesFromEnv({ CLAUDE_CODE_PROMPT_CACHE_TTL: '1h' })).toBe(60);
    expect(claudeCacheMinutesFromEnv({})).toBeNull();
  });

  test('not idle: running a tool, mid-turn, or no reply yet; nothing for a session under minTokens, with the setting off, or for Codex', () => {
    expect(plan(idleSession({ runningToolIds: ['toolu_1'] }))).toEqual({ state: 'busy', why: 'running a tool' });
    expect(plan(idleSession({ awaitingReply: true }))).toMatchObject({ state: 'busy' });
    expect(plan(idleSession({ lastReplyAt: null }))).toMatchObject({ state: 'busy', why: 'no reply yet' });
    expect(plan(idleSession({}, 149_999))).toEqual({ state: 'off', why: '149999 tokens, under minTokens 150000' });
    expect(plan(idleSession(), { ...ON, enabled: false })).toEqual({ state: 'off', why: 'idle handoff is off' });
    const config = resolveAgentsConfig(undefined, undefined);
    expect(config.codex.idleHandoff).toBeNull();
    // The offline document by default: the fork executor costs a model call, so it is asked for.
    expect(config['claude-code'].idleHandoff).toEqual({
      enabled: false,
      minTokens: 150_000,
      afterMinutes: null,
      cacheMinutes: null,
      executor: 'offline',
      forkTimeoutSeconds: 300,
    });
    expect(ConfigFile.safeParse({ agents: { codex: { idleHandoff: { enabled: true } } } }).success).toBe(false);
    expect(ConfigFile.safeParse({ agents: { 'claude-code': { idleHandoff: { enabled: true, afterMinutes: 30 } } } }).success).toBe(true);
    expect(ConfigFile.safeParse({ agents: { 'claude-code': { idleHandoff: { executor: 'fork' } } } }).success).toBe(true);
    expect(ConfigFile.safeParse({ agents: { 'claude-code': { idleHandoff: { executor: 'summary' } } } }).success).toBe(false);
    // The fork is an idle Claude Code session's executor, never one for ai-zen's own sessions.
    expect(ConfigFile.safeParse({ executor: 'fork' }).success).toBe(false);
  });

  test("time is the reply's own stamp, never later than the daemon first saw it; a stretch already past its point when first seen is old news", () => {
    // A clock ahead: the reply says noon, the daemon saw it ten minutes before that.
    expect(plan(idleSession(), ON, REPLY_AT - 600_000)).toMatchObject({ since: REPLY_AT - 600_000, at: REPLY_AT - 600_000 + 45 * 60_000 });
    // A transcript from before the daemon started, idle for two hours already.
    expect(plan(idleSession(), ON, REPLY_AT + 2 * 3_600_000).state).toBe('old');
    // Seen after its reply but before its point (a restart mid-stretch): the reply's stamp counts.
    expect(plan(idleSession(), ON, REPLY_AT + 600_000)).toMatchObject({ state: 'waiting', at: REPLY_AT + 45 * 60_000 });
  });
});

describe("the crossing's idle trigger", () => {
  const agent: CrossingAgent = {
    kind: 'claude-code',
    label: 'Claude Code',
    handoff: true,
    selfHooks: null,
    graceMs: 0,
    selfDeadlineMs: 1000,
  };
  const now = REPLY_AT + 45 * 60_000;

  test('one offline document per idle stretch, marked idle; written, the status says when', () => {
    const first = step(newCrossing(agent, REPLY_AT), { type: 'idle', stretch: 'msg_1@noon' }, now);
    expect(first.effects).toEqual([{ type: 'write', reason: IDLE_REASON, offline: true, byHand: false, trigger: 'idle' }]);
    expect(first.next.phase.name).toBe('writing');
    const written = step(
      first.next,
      {
        type: 'written',
        path: '.ai-zen/handoffs/d.md',
        executor: 'offline',
        successorCommand: 'claude "…"',
        counts: false,
        trigger: 'idle',
      },
      now + 1000,
    );
    expect(written.next.phase.name).toBe('quiet');
    expect(written.next.action).toBe(`handed off while idle ${clockTime(now + 1000)}: .ai-zen/handoffs/d.md`);
    // The same stretch again (a timer, a restart): nothing.
    expect(step(written.next, { type: 'idle', stretch: 'msg_1@noon' }, now + 5000).effects).toEqual([]);
    // A new reply, a new stretch: its own document.
    expect(step(written.next, { type: 'idle', stretch: 'msg_2@later' }, now + 9_000_000).effects).toHaveLength(1);
  });

  test('nothing while the crossing has its own course: asking the agent, writing, or an agent the daemon cannot hand off', () => {
    const base = newCrossing(agent, REPLY_AT);
    const deadline = { at: now + 1000, why: 'x' };
    expect(step({ ...base, phase: { name: 'awaiting-stop', deadline } }, { type: 'idle', stretch: 's' }, now).effects).toEqual([]);
    expect(step({ ...base, phase: { name: 'writing' } }, { type: 'idle', stretch: 's' }, now).effects).toEqual([]);
    expect(step(newCrossing({ ...agent, handoff: false }, REPLY_AT), { type: 'idle', stretch: 's' }, now).effects).toEqual([]);
  });

  test('the trigger of every other write: threshold, precompact, by hand', () => {
    const base = newCrossing(agent, REPLY_AT);
    const requested = (reason: string, byHand: boolean) =>
      step(base, { type: 'write-requested', reason, offline: true, byHand }, now).effects.find((effect) => effect.type === 'write');
    expect(requested('pre-compact (auto)', false)).toMatchObject({ trigger: 'precompact' });
    expect(requested('ipc', true)).toMatchObject({ trigger: 'hand' });
    expect(requested('threshold', false)).toMatchObject({ trigger: 'threshold' });
  });
});
