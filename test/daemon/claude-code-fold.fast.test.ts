// X3 what the Claude Code clients rarely write, from small fixture transcripts: sidechains, API
// errors, `<synthetic>` lines, a 1M window, bogus readings, Claude's own compaction, another repo's
// session; the slug rule; the loop guards. Read by the same incremental reader the daemon uses.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import type { AgentConfig } from '../../src/config/agents-config.js';
import { HandoffLoopGuard } from '../../src/daemon/handoffs/handoff-loop-guard.js';
import { claudeTranscriptMessages } from '../../src/daemon/sources/claude-code/claude-evidence.js';
import { emptyClaudeState, foldClaudeLine } from '../../src/daemon/sources/claude-code/claude-fold.js';
import { claudeSlug, mayHoldSessionsOf } from '../../src/daemon/sources/claude-code/claude-paths.js';
import { claudeAgent } from '../../src/daemon/sources/claude-code/claude-agent.js';
import { toolActivity } from '../../src/handoff/transcript.js';
import { REPLY_HEAD_CHARS, replyHead } from '../../src/daemon/watching/session-source.js';
import { DEFAULT_AGENT_CONFIG } from '../support/agent-config.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'claude-code');
const CONFIG = DEFAULT_AGENT_CONFIG;

/** The fixture copied where Claude Code would keep it, read once by the source's reader. */
async function read(fixture: string, config: AgentConfig = CONFIG) {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-claude-fold-'));
  const folder = path.join(home, 'projects', claudeSlug('/work/repo'));
  await fs.mkdir(folder, { recursive: true });
  const file = path.join(folder, '11111111-2222-4333-8444-555555555555.jsonl');
  await fs.copyFile(path.join(FIXTURES, fixture), file);
  const source = claudeAgent.createSource({ root: '/work/repo', env: { CLAUDE_CONFIG_DIR: home }, config });
  expect(source.matches(file)).toBe(true);
  const update = await source.createReader(file).update();
  await fs.rm(home, { recursive: true, force: true });
  return update;
}

describe('X3 Claude Code transcripts, edge cases', () => {
  test('X3 sidechain, API-error and <synthetic> lines are no readings; a reply split over lines counts once; bogus readings are skipped and logged', async () => {
    const update = await read('edge-cases.jsonl');
    expect(update.state.latestUsage?.prompt_tokens).toBe(24_000);
    expect(update.state.maxContextTokens).toBe(200_000);
    expect(update.state.overflowed).toBe(false);
    expect(update.state.cwd).toBe('/work/repo');
    expect(update.state.otherRepo).toBe(false);
    expect(update.skipped.map((skip) => skip.lineNumber)).toEqual([9, 10]);
    expect((update.state.details as { readings: number }).readings).toBe(2);
  });

  test('X3 a reading over 200k means a 1M window; the config can name the window', async () => {
    const update = await read('one-million.jsonl');
    expect(update.state.latestUsage?.prompt_tokens).toBe(660_000);
    expect(update.state.maxContextTokens).toBe(1_000_000);
    expect(update.state.overflowed).toBe(false);
    const configured = await read('edge-cases.jsonl', { ...CONFIG, contextWindow: 30_000 });
    expect(configured.state.maxContextTokens).toBe(30_000);
    expect(configured.state.overflowed).toBe(true);
  });

  test('X3 compact_boundary is recorded as Claude compacting by itself, and the next reading is the smaller context', async () => {
    const update = await read('compaction.jsonl');
    expect(update.state.compactions).toBe(1);
    expect(update.state.lastCompactionAt).toBe('2026-12-03T06:05:00.000Z');
    expect(update.compactionsSeen).toBe(1);
    expect(update.state.latestUsage?.prompt_tokens).toBe(20_000);
  });

  test('X3 a session whose cwd is another repo (its slug only looks alike) is not this repo’s and never overflows here', async () => {
    const update = await read('other-repo.jsonl');
    expect(update.state.otherRepo).toBe(true);
    expect(update.state.overflowed).toBe(false);
  });

  test('X3 the slug is the path with every non-alphanumeric as "-"; subfolders and long paths share the prefix; other repos do not', () => {
    expect(claudeSlug('/home/me/my_repo.v2')).toBe('-home-me-my-repo-v2');
    expect(mayHoldSessionsOf('-home-me-repo', '/home/me/repo')).toBe(true);
    expect(mayHoldSessionsOf('-home-me-repo-src', '/home/me/repo')).toBe(true);
    expect(mayHoldSessionsOf('-home-me-repository', '/home/me/repo')).toBe(false);
    const long = `/${'a'.repeat(250)}`;
    expect(mayHoldSessionsOf(`${claudeSlug(long).slice(0, 200)}-1x2y3z`, long)).toBe(true);
  });

  test('X3 the evidence: the user’s words (not tool results, not meta or compact summaries), the assistant’s text, files and commands with their exit status', async () => {
    const text = await fs.readFile(path.join(FIXTURES, 'compaction.jsonl'), 'utf8');
    const messages = claudeTranscriptMessages(text.split('\n'));
    expect(messages.filter((entry) => entry.message.role === 'user').map((entry) => entry.message.content)).toEqual(['Keep going']);
    const lines = [
      { type: 'user', message: { role: 'user', content: 'Edit and test' } },
      {
        type: 'assistant',
        message: {
          id: 'm1',
          model: 'x',
          content: [{ type: 'tool_use', id: 'a', name: 'Edit', input: { file_path: '/r/a.ts', old_string: 'x', new_string: 'y' } }],
        },
      },
      {
        type: 'assistant',
        message: { id: 'm1', model: 'x', content: [{ type: 'tool_use', id: 'b', name: 'Bash', input: { command: 'npm test' } }] },
      },
      { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'ok' }] } },
      {
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: 'Exit code 2\nfailed', is_error: true }] },
      },
    ].map((line) => JSON.stringify(line));
    const activity = toolActivity(claudeTranscriptMessages(lines));
    expect(activity.files).toEqual([{ tool: 'edit', path: '/r/a.ts' }]);
    expect(activity.commands).toEqual([{ command: 'npm test', exitCode: 2 }]);
  });

  test('X3 loop guards: a grace window after the start (unless over 95%), a session first seen above waits 10 more points, at most 3 per 15 minutes then it stops once', () => {
    const guard = new HandoffLoopGuard();
    const at = (minutes: number) => Date.UTC(2026, 11, 3, 6, minutes);
    const check = (file: string, percent: number, minutes: number, firstSeen = false, startedAt = at(0)) =>
      guard.check({ file, percent, handoffAt: 70, startedAtMs: startedAt, firstSeen, nowMs: at(minutes) });
    expect(check('young', 75, 1)).toMatchObject({ go: false, retryAtMs: at(2) });
    expect(check('young-full', 96, 1)).toEqual({ go: true });
    expect(check('above', 75, 10, true).go).toBe(false);
    expect(check('above', 84, 11).go).toBe(false);
    expect(check('above', 85, 12).go).toBe(true);
    expect([check('loop', 71, 3), check('loop', 71, 4), check('loop', 71, 5)].every((verdict) => verdict.go)).toBe(true);
    expect(check('loop', 71, 6)).toMatchObject({ go: false, stoppedTrying: true });
    expect(check('loop', 71, 7)).toMatchObject({ go: false });
    expect(check('loop', 71, 7)).not.toHaveProperty('stoppedTrying', true);
    expect(check('loop', 71, 19).go).toBe(true);
  });
});

describe('who runs the turn: a person or a script', () => {
  const options = { root: '/work/repo', handoffAt: 70, warnAt: 60, handoffAtTokens: null, contextWindow: null, models: {} };
  const user = (entrypoint: string, lineNumber: number) => ({
    text: JSON.stringify({ type: 'user', entrypoint, cwd: '/work/repo', message: { role: 'user', content: 'go on' } }),
    lineNumber,
    offset: 0,
  });

  test('the latest user line decides: `claude -p` (sdk-cli) is a script, the same session resumed at the terminal (cli) is not', () => {
    let state = emptyClaudeState('/x/11111111-2222-4333-8444-555555555555.jsonl', options);
    expect(state.scripted).toBeUndefined();
    for (const [entrypoint, scripted] of [
      ['sdk-cli', true],
      ['cli', false],
      ['sdk-ts', true],
    ] as const) {
      const folded = foldClaudeLine(state, user(entrypoint, 1), options);
      if (typeof folded === 'string') throw new Error(folded);
      state = folded;
      expect(state.scripted).toBe(scripted);
    }
  });
});

describe('the reply a turn ended on, as the Stop hook compares it', () => {
  const options = { root: '/work/repo', handoffAt: 70, warnAt: 60, handoffAtTokens: null, contextWindow: null, models: {} };
  const reply = (id: string, content: object[], lineNumber: number) => ({
    text: JSON.stringify({
      type: 'assistant',
      cwd: '/work/repo',
      message: { id, role: 'assistant', content, usage: { input_tokens: 1_000, output_tokens: 5 } },
    }),
    lineNumber,
    offset: 0,
  });
  const fold = (lines: ReturnType<typeof reply>[]) => {
    let state = emptyClaudeState('/x/11111111-2222-4333-8444-555555555555.jsonl', options);
    for (const line of lines) {
      const folded = foldClaudeLine(state, line, options);
      if (typeof folded === 'string') throw new Error(folded);
      state = folded;
    }
    return state.turn?.lastReplyHead;
  };

  test('one reply over several lines is its text blocks joined as Claude joins them (last_assistant_message), whitespace as one space', () => {
    const head = fold([
      reply('msg_1', [{ type: 'thinking', thinking: 'hmm' }], 1),
      reply('msg_1', [{ type: 'text', text: 'The parser\n\nis fixed.' }], 2),
      reply('msg_1', [{ type: 'text', text: '  Tests pass.' }], 3),
    ]);
    expect(head).toBe(replyHead('The parser\n\nis fixed.\n  Tests pass.'));
    expect(head).toBe('The parser is fixed. Tests pass.');
  });

  test('a new reply starts over: one with a tool call and no text has none; a long one is kept to its start', () => {
    expect(
      fold([
        reply('msg_1', [{ type: 'text', text: 'Done.' }], 1),
        reply('msg_2', [{ type: 'tool_use', id: 't', name: 'Bash', input: {} }], 2),
      ]),
    ).toBe('');
    const long = 'word '.repeat(500);
    expect(fold([reply('msg_1', [{ type: 'text', text: long }], 1)])).toBe(replyHead(long));
    expect(replyHead(long)).toHaveLength(REPLY_HEAD_CHARS);
  });
});
