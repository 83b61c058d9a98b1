// The Codex rollout fold and session_meta reader, on small hand-made lines shaped like the ones
// the real client (0.171) writes (the X3 end-to-end tests drive the real client itself).
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { readCodexEvidence } from '../../src/daemon/sources/codex/codex-evidence.js';
import { codexRolloutFold } from '../../src/daemon/sources/codex/codex-rollout.js';
import { metaFromHead, readRolloutMeta } from '../../src/daemon/sources/codex/codex-rollout-meta.js';
import { lastDelivery, lastUserRequest, toolActivity } from '../../src/handoff/transcript.js';
import { belongsToRepo } from '../../src/probe/innermost-repo.js';
import { foldLines } from '../support/fold-lines.js';

let ordinal = 0;
const line = (type: string, payload: unknown) =>
  JSON.stringify({ timestamp: '2026-12-03T05:43:02.000Z', ordinal: ordinal++, type, payload });
const meta = (cwd: string, id = '01a23a6d-790a-79f2-a8a8-bc58c28da728') =>
  line('session_meta', {
    session_id: id,
    id,
    timestamp: '2026-12-03T05:43:02.000Z',
    cwd,
    cli_version: '0.171.0',
    base_instructions: { text: 'x'.repeat(30_000) },
  });
const usage = (input: number, cached: number, output: number, total = input + output, reasoning = 0) => ({
  input_tokens: input,
  cached_input_tokens: cached,
  output_tokens: output,
  reasoning_output_tokens: reasoning,
  total_tokens: total,
});
const tokenCount = (last: object, window = 258_400, total: object = last) =>
  line('event_msg', {
    type: 'token_count',
    info: { total_token_usage: total, last_token_usage: last, model_context_window: window },
    rate_limits: null,
  });
const item = (value: object) => line('event_msg', { type: 'item_completed', item: value });

const FILE = '/codex/sessions/2026/12/03/rollout-2026-12-03T05-43-02-01a23a6d-790a-79f2-a8a8-bc58c28da728.jsonl';
const foldAll = (lines: string[]) => foldLines(codexRolloutFold, FILE, lines);

describe('X3 Codex rollout reading', () => {
  test('X3 the context is the last turn’s total (cached input included), never the running total; the window comes from the same line', () => {
    const { state } = foldAll([
      meta('/repo'),
      tokenCount(usage(20_000, 15_000, 100), 258_400, usage(900_000, 0, 0)),
      tokenCount(usage(21_000, 20_000, 100), 258_400, usage(999_999, 0, 0)),
    ]);
    // 21,000 input of which 20,000 cached, and 100 output: the context is all of it.
    expect(state).toMatchObject({ latestUsage: { prompt_tokens: 21_100 }, maxContextTokens: 258_400 });
    expect(state.sessionId).toBe('01a23a6d-790a-79f2-a8a8-bc58c28da728');
    expect(state.cwd).toBe('/repo');
  });

  test('X3 a repeated identical reading counts once', () => {
    const same = tokenCount(usage(95_000, 0, 10_000));
    const { state, news } = foldAll([meta('/repo'), same, same, tokenCount(usage(96_000, 0, 10))]);
    expect(state.messageCount).toBe(2);
    expect(news).toEqual(['reading', 'reading']);
  });

  test('X3 the all-zero reading after Codex’s own compaction is recorded as a compaction, once with its other markers', () => {
    const { state, news } = foldAll([
      meta('/repo'),
      tokenCount(usage(240_000, 0, 5_000)),
      line('compacted', { message: 'summary', replacement_history: [] }),
      tokenCount(usage(0, 0, 0, 6_861)),
      item({ type: 'ContextCompaction', id: 'c1' }),
      tokenCount(usage(7_000, 0, 10)),
    ]);
    expect(state.compactions).toBe(1);
    expect(news).toEqual(['reading', 'compaction', 'reading', 'reading']);
    expect(state.latestUsage?.prompt_tokens).toBe(7_010);
  });

  test('X3 bogus readings are skipped with a reason and leave the last good reading in place', () => {
    const { state, skips } = foldAll([
      meta('/repo'),
      tokenCount(usage(50_000, 0, 10)),
      tokenCount({ input_tokens: -5, output_tokens: 1 }),
      tokenCount({ input_tokens: '12', output_tokens: 1 }),
      tokenCount({ input_tokens: 1.5, output_tokens: 1 }),
      line('event_msg', { type: 'token_count', info: null }),
      '{"timestamp":"x","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":',
      '[]',
    ]);
    expect(state.latestUsage?.prompt_tokens).toBe(50_010);
    expect(skips).toHaveLength(5);
  });

  test('X3 evidence: the user’s own words, the last assistant text, files from apply_patch, commands with exit status', async () => {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-codex-evidence-'));
    const file = path.join(folder, 'rollout.jsonl');
    const lines = [
      meta('/repo'),
      line('response_item', {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: '<environment_context>…</environment_context>' }],
      }),
      item({ type: 'UserMessage', content: [{ type: 'text', text: 'please add a hello file', text_elements: [] }] }),
      item({ type: 'AgentMessage', content: [{ type: 'Text', text: 'I will look.' }] }),
      item({ type: 'CommandExecution', command: ['/bin/bash', '-lc', 'ls -la && false'], exit_code: 1, status: 'failed' }),
      item({
        type: 'FileChange',
        changes: { '/repo/hello.txt': { type: 'add', content: 'hi\n' }, '/repo/a.txt': { type: 'update', move_path: '/repo/b.txt' } },
        status: 'completed',
      }),
      item({ type: 'FileChange', changes: { '/repo/declined.txt': { type: 'add' } }, status: 'declined' }),
      // What older clients wrote instead.
      line('event_msg', { type: 'exec_command_end', command: ['bash', '-lc', 'npm test'], exit_code: 0 }),
      line('event_msg', {
        type: 'patch_apply_end',
        success: true,
        changes: { '/repo/hello.txt': { type: 'update' }, '/repo/c.txt': { type: 'add' } },
      }),
      line('event_msg', { type: 'agent_message', message: 'Done: wrote hello.txt' }),
    ];
    try {
      await fs.writeFile(file, `${lines.join('\n')}\n`);
      const { messages } = await readCodexEvidence(file, '/repo');
      expect(lastUserRequest(messages)).toBe('please add a hello file');
      expect(lastDelivery(messages)).toBe('Done: wrote hello.txt');
      const activity = toolActivity(messages);
      expect([...new Set(activity.files.map((change) => change.path))]).toEqual(['hello.txt', 'a.txt', 'b.txt', 'c.txt']);
      expect(activity.commands).toEqual([
        { command: 'ls -la && false', exitCode: 1 },
        { command: 'npm test', exitCode: 0 },
      ]);
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
    }
  });
});

describe('X3 Codex rollout ownership', () => {
  test('X3 id and cwd come from the first few KB of a 30 KB session_meta line', async () => {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-codex-meta-'));
    try {
      const file = path.join(folder, 'rollout-2026-12-03T05-43-02-01a23a6d.jsonl');
      await fs.writeFile(file, `${meta('/work/repo "quoted"/sub')}\n${tokenCount(usage(1, 0, 1))}\n`);
      expect(await readRolloutMeta(file)).toEqual({ meta: { id: '01a23a6d-790a-79f2-a8a8-bc58c28da728', cwd: '/work/repo "quoted"/sub' } });
      // cwd after a long field: read further, still only the first line.
      const late = JSON.stringify({
        timestamp: 't',
        type: 'session_meta',
        payload: { id: 'a', notes: { deep: ['x'.repeat(10_000), { y: '}' }] }, cwd: '/late' },
      });
      await fs.writeFile(file, `${late}\n`);
      expect(await readRolloutMeta(file)).toEqual({ meta: { id: 'a', cwd: '/late' } });
      await fs.writeFile(file, `${tokenCount(usage(1, 0, 1))}\n`);
      expect(await readRolloutMeta(file)).toEqual({ unreadable: 'first line is event_msg, not session_meta' });
      await fs.writeFile(file, '');
      expect(await readRolloutMeta(file)).toEqual({ unreadable: 'empty' });
      expect(await readRolloutMeta(path.join(folder, 'gone.jsonl'))).toEqual({ unreadable: 'ENOENT' });
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
    }
  });

  test('X3 a session belongs to the repo when it ran in the root or a folder inside it', () => {
    expect(belongsToRepo('/work/repo', '/work/repo')).toBe(true);
    expect(belongsToRepo('/work/repo', '/work/repo/packages/a')).toBe(true);
    expect(belongsToRepo('/work/repo', '/work/repo-other')).toBe(false);
    expect(belongsToRepo('/work/repo', '/work')).toBe(false);
    expect(belongsToRepo('/work/repo', 'relative/repo')).toBe(false);
    expect(metaFromHead('{"timestamp":"t","type":"session_meta","payload":{"id":"a",')).toBe('more');
  });
});

describe('who runs a Codex session', () => {
  const meta = (originator: string) => line('session_meta', { id: 'abc', cwd: '/work/repo', originator });

  test('`codex exec` (originator codex_exec) is a script; the interactive client is not; a later process (a resume) decides again', () => {
    expect(foldAll([meta('codex_exec')]).state.scripted).toBe(true);
    expect(foldAll([meta('codex_cli_rs')]).state.scripted).toBe(false);
    expect(foldAll([meta('codex_exec'), meta('codex_cli_rs')]).state).toMatchObject({ sessionId: 'abc', scripted: false });
    expect(foldAll([line('session_meta', { id: 'abc', cwd: '/work/repo' })]).state.scripted).toBeUndefined();
  });
});
