// Gemini CLI edge cases from lines shaped as 0.61 writes them (seen in the real client's
// transcripts): the metadata line, `$set` patches, a reply written again under its id with its tool
// calls, function responses sent back as the user's, `$rewindTo`, a metadata id that is not the file
// name's (T2); whose project folders are watched (`.project_root`: this repo, a subfolder, another
// repo, a nested repo); the hook input (PreCompress "auto" ignored, the answering turn found in the
// transcript); the evidence. Read by the same reader the daemon uses, in real temp folders.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { AgentConfig } from '../../src/config/agents-config.js';
import { conversation, geminiSessionMessages } from '../../src/daemon/sources/gemini/gemini-evidence.js';
import { readGeminiHookInput } from '../../src/daemon/sources/gemini/gemini-hooks.js';
import { geminiAgent } from '../../src/daemon/sources/gemini/gemini-agent.js';
import { previousDocumentPath } from '../../src/handoff/previous-document.js';
import { DEFAULT_AGENT_CONFIG } from '../support/agent-config.js';

const CONFIG = DEFAULT_AGENT_CONFIG;
const ID = '3d57ac63-d4fd-4b31-90c4-21c84cde8b1f';
const NAME = 'session-2026-12-04T07-41-3d57ac63.jsonl';
const MARK = '[ai-zen handoff]';

const meta = (id = ID) => ({
  sessionId: id,
  projectHash: 'b0db30',
  startTime: '2026-12-04T07:41:04.682Z',
  lastUpdated: '2026-12-04T07:41:04.682Z',
  kind: 'main',
});
const context = {
  id: 'd049',
  timestamp: '2026-12-04T07:41:04.691Z',
  type: 'user',
  content: [{ text: '<session_context>\nThis is the Gemini CLI.\n</session_context>' }],
};
const user = (id: string, text: string) => ({ id, timestamp: '2026-12-04T07:41:05.000Z', type: 'user', content: [{ text }] });
const reply = (id: string, input: number, extra: object = {}) => ({
  id,
  timestamp: '2026-12-04T07:41:06.000Z',
  type: 'gemini',
  content: '',
  thoughts: [],
  tokens: { input, output: 7, cached: 100, thoughts: 0, tool: 0, total: input + 7 },
  model: 'gemini-3.8-flash',
  ...extra,
});
const shell = (command: string, output: string) => ({
  id: `run_shell_command_${command.length}`,
  name: 'run_shell_command',
  args: { command },
  result: [{ functionResponse: { name: 'run_shell_command', response: { output } } }],
  status: 'success',
});

describe('X3 gemini: what Gemini CLI 0.61 writes, read as the daemon reads it', () => {
  let base: string;
  let root: string;
  let home: string;
  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-gemini-fold-')));
    root = path.join(base, 'repo');
    home = path.join(base, 'gemini-user');
    await fs.mkdir(path.join(root, '.git'), { recursive: true });
  });
  afterEach(async () => {
    await fs.rm(base, { recursive: true, force: true });
  });

  /** A project folder of Gemini's naming `projectRoot`, with one session of `lines`. */
  async function session(
    lines: readonly unknown[],
    options: { project?: string; projectRoot?: string; name?: string; config?: AgentConfig } = {},
  ) {
    const folder = path.join(home, '.gemini', 'tmp', options.project ?? 'repo');
    await fs.mkdir(path.join(folder, 'chats'), { recursive: true });
    await fs.writeFile(path.join(folder, '.project_root'), options.projectRoot ?? root);
    const file = path.join(folder, 'chats', options.name ?? NAME);
    await fs.writeFile(file, lines.map((line) => `${typeof line === 'string' ? line : JSON.stringify(line)}\n`).join(''));
    const source = geminiAgent.createSource({ root, env: { GEMINI_CLI_HOME: home }, config: options.config ?? CONFIG });
    return { file, source, update: () => source.createReader(file).update() };
  }

  test('X3 gemini: the context is the last reply’s tokens.input (a reply written again under its id counts once), the window the model’s (1,048,576; Gemma 4 256k; config over both), handoffAt 47 below Gemini’s 50; the person’s words count, the client’s context and function responses do not', async () => {
    const call = shell('ls -la', '<untrusted_context>\nOutput: .\nProcess Group PGID: 1120\n</untrusted_context>');
    const { update, source, file } = await session([
      meta(),
      { $set: { messages: [context], lastUpdated: '2026-12-04T07:41:04.691Z' } },
      user('u1', 'please WRITE notes'),
      { $set: { lastUpdated: '2026-12-04T07:41:04.733Z' } },
      reply('g1', 12_345),
      reply('g1', 12_345, { toolCalls: [call] }),
      { id: 'u2', timestamp: '2026-12-04T07:41:07.335Z', type: 'user', content: [{ functionResponse: call.result[0]!.functionResponse }] },
      reply('g2', 200_000, { content: 'done after tools' }),
      '{"id":"torn',
    ]);
    expect(source.matches(file)).toBe(true);
    const { state } = await update();
    expect(state).toMatchObject({
      kind: 'gemini',
      sessionId: ID,
      model: 'gemini-3.8-flash',
      maxContextTokens: 1_048_576,
      latestUsage: { prompt_tokens: 200_000, completion_tokens: 7, total_tokens: 200_007 },
      messageCount: 3,
      thresholds: { handoffAt: 47, compactsAt: 50 },
      cwd: root,
      otherRepo: false,
      startedAt: '2026-12-04T07:41:04.682Z',
      firstReadingTokens: 12_345,
      skippedCount: 1,
    });

    const gemma = await session([meta(), user('u1', 'hi'), { ...reply('g1', 130_000), model: 'gemma-4-31b-it' }]);
    expect((await gemma.update()).state).toMatchObject({ maxContextTokens: 256_000, overflowed: true });
    const configured = await session([meta(), user('u1', 'hi'), reply('g1', 130_000)], {
      config: { ...CONFIG, contextWindow: 400_000, handoffAtTokens: 100_000 },
    });
    expect((await configured.update()).state).toMatchObject({ maxContextTokens: 400_000, overflowed: true, thresholds: { handoffAt: 25 } });
  });

  test('X3 gemini (T2): a metadata line naming another session than the file name refuses the file', async () => {
    const { update } = await session([meta('ffffffff-0000-4000-8000-000000000000'), user('u1', 'hi'), reply('g1', 900_000)]);
    const { state } = await update();
    expect(state.refusedBecause).toMatch(/names session ffffffff-.*not the file name's 3d57ac63/);
    expect(state.overflowed).toBe(false);
  });

  test('X3 gemini: only the project folders whose .project_root is this repo or a folder in it are watched — not another repo’s, not a nested repo’s; a folder whose root is not written yet is watched as a parent', async () => {
    await fs.mkdir(path.join(root, 'sub'), { recursive: true });
    await fs.mkdir(path.join(root, 'vendor', 'lib', '.git'), { recursive: true });
    await session([meta()]);
    await session([meta()], { project: 'sub', projectRoot: path.join(root, 'sub') });
    await session([meta()], { project: 'lib', projectRoot: path.join(root, 'vendor', 'lib') });
    await session([meta()], { project: 'other', projectRoot: path.join(base, 'other') });
    await session([meta()], { project: 'repo-1', projectRoot: `${root}-1` });
    await fs.mkdir(path.join(home, '.gemini', 'tmp', 'starting'));
    const { source } = await session([meta()]);
    const tmp = path.join(home, '.gemini', 'tmp');
    const listed = await source.folders.list();
    expect([...listed.folders].sort()).toEqual([path.join(tmp, 'repo', 'chats'), path.join(tmp, 'sub', 'chats')]);
    expect(listed.parents).toEqual(expect.arrayContaining([tmp, path.join(tmp, 'starting')]));
    expect(listed.parents).not.toContain(path.join(tmp, 'other'));
    // A subagent's chat is deeper: no session of its own.
    expect(source.matches(path.join(tmp, 'repo', 'chats', ID, 'abc.jsonl'))).toBe(false);
  });

  test('X3 gemini hooks: PreCompress "auto" (fired before every turn) is not passed on, /compress is; AfterAgent is the Stop that answered the block when Gemini says so, or when the transcript’s last words from the user side are ai-zen’s reason', async () => {
    const base = { session_id: ID, cwd: root, timestamp: '2026-12-04T07:41:07.000Z' };
    const { file } = await session([meta(), user('u1', 'fix the bug'), reply('g1', 1000)]);
    expect(readGeminiHookInput({ ...base, transcript_path: file, hook_event_name: 'PreCompress', trigger: 'auto' })).toBeNull();
    expect(readGeminiHookInput({ ...base, transcript_path: file, hook_event_name: 'PreCompress', trigger: 'manual' })).toMatchObject({
      transcript_path: file,
      trigger: 'manual',
    });
    expect(readGeminiHookInput({ ...base, transcript_path: file, hook_event_name: 'SessionStart', source: 'startup' })).toMatchObject({
      source: 'startup',
    });
    const stop = { ...base, transcript_path: file, hook_event_name: 'AfterAgent', prompt: 'fix the bug', prompt_response: 'ok' };
    expect(readGeminiHookInput({ ...stop, stop_hook_active: false })).toMatchObject({ stop_hook_active: false });
    expect(readGeminiHookInput({ ...stop, stop_hook_active: true })).toMatchObject({ stop_hook_active: true });
    // The reason was sent, the agent wrote with a tool, and stopped: Gemini says false, the transcript says otherwise.
    const write = { id: 'w', name: 'write_file', args: { file_path: 'doc.md' }, result: [], status: 'success' };
    const answered = await session([
      meta(),
      user('u1', 'fix the bug'),
      reply('g1', 1000),
      user('u2', `${MARK} This session has used 48% of its context window`),
      reply('g2', 1100, { toolCalls: [write] }),
      { id: 'u3', type: 'user', content: [{ functionResponse: { name: 'write_file', response: { output: 'ok' } } }] },
      reply('g3', 1200, { content: 'written' }),
    ]);
    expect(readGeminiHookInput({ ...stop, transcript_path: answered.file, stop_hook_active: false })).toMatchObject({
      stop_hook_active: true,
    });
    expect(readGeminiHookInput({ ...stop, transcript_path: '/etc/passwd', stop_hook_active: false })).toMatchObject({
      stop_hook_active: false,
    });
    expect(readGeminiHookInput({ hook_event_name: 'AfterAgent' })).toBeNull();
  });

  test('X3 gemini evidence: the conversation as Gemini rebuilds it ($rewindTo drops, a rewrite replaces), the person’s words without the client’s context or ai-zen’s reason, files relative to the repo, commands with their exit code', () => {
    const lines = [
      meta(),
      { $set: { messages: [context] } },
      user('u0', 'an abandoned request'),
      reply('g0', 500, { content: 'abandoned' }),
      { $rewindTo: 'u0' },
      user('u1', 'add a --verbose flag'),
      reply('g1', 1000),
      reply('g1', 1000, {
        toolCalls: [
          { id: 'c1', name: 'write_file', args: { file_path: path.join(root, 'src', 'cli.ts') }, result: [], status: 'success' },
          { id: 'c2', name: 'replace', args: { file_path: 'README.md' }, result: [], status: 'success' },
          shell('npm test', 'Output: 1 failing\nExit Code: 2'),
          { ...shell('ls', 'Output: .'), id: 'c4' },
        ],
      }),
      user('u2', `${MARK} write the handoff document`),
      reply('g2', 1200, { content: 'The flag is wired; one test fails.' }),
    ].map((line) => JSON.stringify(line));
    const messages = geminiSessionMessages(conversation(lines), root).map((entry) => entry.message);
    expect(messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['add a --verbose flag']);
    const calls = messages
      .flatMap((message) => message.tool_calls ?? [])
      .map((call) => [call.function.name, JSON.parse(call.function.arguments)]);
    expect(calls).toEqual([
      ['write', { path: path.join('src', 'cli.ts') }],
      ['edit', { path: 'README.md' }],
      ['exec', { command: 'npm test' }],
      ['exec', { command: 'ls' }],
    ]);
    const results = messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
    expect(results[2]).toMatch(/\[exit code 2\]$/);
    expect(results[3]).toMatch(/\[exit code 0\]$/);
    expect(messages.at(-1)).toEqual({ role: 'assistant', content: 'The flag is wired; one test fails.' });
    expect(JSON.stringify(messages)).not.toContain('abandoned');
  });

  test('X3 gemini: a successor’s first prompt, with the SessionStart hook’s context Gemini prepends in the same text part, names the document it continues from', () => {
    const lines = [
      meta(),
      { $set: { messages: [context] } },
      user(
        'u1',
        '<hook_context>ai-zen: the newest handoff document of this repo is .ai-zen/handoffs/x.md.</hook_context>\n\nRead the handoff document .ai-zen/handoffs/20261204-084500-3d57ac63.md first.',
      ),
      reply('g1', 1000, { content: 'Reading it.' }),
    ].map((line) => JSON.stringify(line));
    const messages = geminiSessionMessages(conversation(lines), root);
    expect(messages[0]!.message).toEqual({
      role: 'user',
      content: 'Read the handoff document .ai-zen/handoffs/20261204-084500-3d57ac63.md first.',
    });
    expect(previousDocumentPath(messages)).toBe('.ai-zen/handoffs/20261204-084500-3d57ac63.md');
  });
});
