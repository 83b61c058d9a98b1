// Finding this repo's Codex rollouts among everyone's, and reading them: real folders, small
// fixture rollouts shaped like the real client's (the X3 end-to-end tests drive the client itself).
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { AgentWindowSettings } from '../../src/config/agent-models.js';
import { readCodexEvidence } from '../../src/daemon/sources/codex/codex-evidence.js';
import { codexRolloutFold } from '../../src/daemon/sources/codex/codex-rollout.js';
import { codexOwnership, codexRolloutFolders } from '../../src/daemon/sources/codex/codex-rollout-folders.js';
import { createAgentReader } from '../../src/daemon/sources/kit/agent-reader.js';
import type { Owners } from '../../src/daemon/sources/kit/owners.js';
import { toolActivity, lastUserRequest, lastDelivery } from '../../src/handoff/transcript.js';

let base: string;
let sessions: string;
let repo: string;

const settings = { handoffAt: 70, warnAt: 60, handoffAtTokens: null, contextWindow: null, models: {} };
let ordinal = 0;
const line = (type: string, payload: unknown) =>
  JSON.stringify({ timestamp: '2026-12-03T05:43:02.000Z', ordinal: ordinal++, type, payload });
const metaLine = (cwd: string, id: string) =>
  line('session_meta', { session_id: id, id, timestamp: '2026-11-20T09:00:00.000Z', cwd, base_instructions: { text: 'x'.repeat(20_000) } });
const countLine = (total: number, window = 258_400) =>
  line('event_msg', {
    type: 'token_count',
    info: {
      last_token_usage: { input_tokens: total, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0, total_tokens: total },
      model_context_window: window,
    },
  });
const createCodexSessionReader = (file: string, ownership: Owners, windows: AgentWindowSettings) =>
  createAgentReader(file, codexRolloutFold, windows, (name) => ownership.decide(name));
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

async function writeRollout(day: string, id: string, cwd: string, ...more: string[]): Promise<string> {
  const folder = path.join(sessions, day);
  await fs.mkdir(folder, { recursive: true });
  const file = path.join(folder, `rollout-2026-01-01T00-00-00-${id}.jsonl`);
  await fs.writeFile(file, [metaLine(cwd, id), ...more].map((text) => `${text}\n`).join(''));
  return file;
}

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-codex-folders-')));
  sessions = path.join(base, 'codex', 'sessions');
  repo = path.join(base, 'repo');
  await fs.mkdir(repo, { recursive: true });
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

describe('X3 Codex rollouts of this repo among everyone’s', () => {
  test('X3 other repos’ rollouts cost one head read each, once; the folders watched are the newest day and the days holding this repo’s rollouts', async () => {
    for (let n = 0; n < 300; n += 1)
      await writeRollout(`2026/${n % 2 === 0 ? '10' : '11'}/${String(1 + (n % 28)).padStart(2, '0')}`, uuid(n), `/elsewhere/repo-${n}`);
    await writeRollout('2026/10/05', uuid(1000), repo);
    await writeRollout('2026/11/30', uuid(1001), path.join(repo, 'packages', 'a'));
    const ownership = codexOwnership(repo);
    const folders = codexRolloutFolders(sessions, ownership);
    expect(await folders.list()).toEqual({
      folders: [path.join(sessions, '2026/10/05'), path.join(sessions, '2026/11/30')],
      parents: [sessions, path.join(sessions, '2026'), path.join(sessions, '2026/11')],
    });
    expect(ownership.counters.reads).toBe(302);

    // Listed again (a parent moved): no rollout is read again, and unchanged days are not even listed.
    const listings = folders.counters.listings;
    await folders.list();
    expect(ownership.counters.reads).toBe(302);
    expect(folders.counters.listings - listings).toBe(1 + 1 + 2); // sessions, 2026, its two months

    // Midnight: a new year's first day.
    await writeRollout('2027/01/01', uuid(2000), '/elsewhere/x');
    expect(await folders.list()).toEqual({
      folders: [path.join(sessions, '2026/10/05'), path.join(sessions, '2026/11/30'), path.join(sessions, '2027/01/01')],
      parents: [sessions, path.join(sessions, '2027'), path.join(sessions, '2027/01')],
    });
    expect(ownership.counters.reads).toBe(303);
  });

  test('X3 no sessions folder yet: nothing to watch but the folder to come', async () => {
    const folders = codexRolloutFolders(sessions, codexOwnership(repo));
    expect(await folders.list()).toEqual({ folders: [], parents: [sessions] });
  });

  test('X3 a rollout of another repo is reported foreign after its head and never read; one being created is decided once its first line is there', async () => {
    const ownership = codexOwnership(repo);
    const foreign = await writeRollout('2026/12/03', uuid(1), '/elsewhere', countLine(200_000));
    const reader = createCodexSessionReader(foreign, ownership, settings);
    const update = await reader.update();
    expect(update.state.otherRepo).toBe(true);
    expect(reader.counters.bytesRead).toBe(0);

    const fresh = path.join(sessions, '2026/12/03', `rollout-2026-12-03T00-00-00-${uuid(2)}.jsonl`);
    await fs.writeFile(fresh, '');
    const early = createCodexSessionReader(fresh, ownership, settings);
    expect((await early.update()).state.otherRepo).toBe(false);
    await fs.appendFile(fresh, `${metaLine(repo, uuid(2))}\n${countLine(129_200)}\n`);
    const later = await early.update();
    expect(later.state).toMatchObject({
      otherRepo: false,
      sessionId: uuid(2),
      latestUsage: { prompt_tokens: 129_200 },
      maxContextTokens: 258_400,
    });
  });

  test('X3 `codex exec resume` appending to an older day’s file: only the appended bytes are read, the crossing is seen', async () => {
    const ownership = codexOwnership(repo);
    const old = await writeRollout('2026/11/20', uuid(5), repo, countLine(100_000));
    const reader = createCodexSessionReader(old, ownership, settings);
    const first = await reader.update();
    expect(first.state).toMatchObject({ overflowed: false, startedAt: '2026-11-20T09:00:00.000Z' });
    const resumed = `${countLine(181_000)}\n`;
    await fs.appendFile(old, resumed);
    const update = await reader.update();
    expect(update.bytesRead).toBe(Buffer.byteLength(resumed));
    expect(update.overflowStarted).toBe(true);
    expect(Math.round((update.state.latestUsage!.prompt_tokens / update.state.maxContextTokens!) * 100)).toBe(70);
  });

  test('X3 edge cases: bogus readings are skipped and logged, an all-zero reading after a compaction is counted once, a configured window wins', async () => {
    const ownership = codexOwnership(repo);
    const file = await writeRollout(
      '2026/12/03',
      uuid(6),
      repo,
      countLine(200_000),
      line('event_msg', {
        type: 'token_count',
        info: { last_token_usage: { input_tokens: -1, output_tokens: 'many' }, model_context_window: 258_400 },
      }),
      '{"truncated":',
      line('compacted', { message: 'summary', replacement_history: [] }),
      line('event_msg', {
        type: 'token_count',
        info: {
          last_token_usage: { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0, total_tokens: 6_861 },
          model_context_window: 258_400,
        },
      }),
      line('event_msg', { type: 'item_completed', item: { type: 'ContextCompaction', id: 'c' } }),
    );
    const reader = createCodexSessionReader(file, ownership, { ...settings, contextWindow: 100_000 });
    const update = await reader.update();
    expect(update.skipped.map((skip) => skip.reason)).toEqual([expect.stringMatching(/^token_count reading is not usable/), 'not JSON']);
    expect(update.state).toMatchObject({
      compactions: 1,
      maxContextTokens: 100_000,
      latestUsage: { prompt_tokens: 6_861 },
      overflowed: false,
    });
    expect(update.state.messageCount).toBe(2);
  });

  test('X3 evidence for the offline document: the user’s words, the last answer, files from apply_patch relative to the repo, commands with their exit status', async () => {
    const item = (value: object) => line('event_msg', { type: 'item_completed', item: value });
    const file = await writeRollout(
      '2026/12/03',
      uuid(7),
      repo,
      line('response_item', {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: '<environment_context>…</environment_context>' }],
      }),
      item({ type: 'UserMessage', content: [{ type: 'text', text: 'add a hello file', text_elements: [] }] }),
      item({ type: 'CommandExecution', command: ['/bin/bash', '-lc', 'ls -la && false'], exit_code: 1, status: 'failed' }),
      item({
        type: 'FileChange',
        changes: { [path.join(repo, 'hello.txt')]: { type: 'add', content: 'hi\n' }, '/outside/x.txt': { type: 'update' } },
        status: 'completed',
      }),
      item({ type: 'AgentMessage', content: [{ type: 'Text', text: 'Done: wrote hello.txt' }] }),
    );
    const { messages } = await readCodexEvidence(file, repo);
    expect(lastUserRequest(messages)).toBe('add a hello file');
    expect(lastDelivery(messages)).toBe('Done: wrote hello.txt');
    expect(toolActivity(messages)).toEqual({
      files: [
        { tool: 'write', path: 'hello.txt' },
        { tool: 'edit', path: '/outside/x.txt' },
      ],
      commands: [{ command: 'ls -la && false', exitCode: 1 }],
    });
  });
});
