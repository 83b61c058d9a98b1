// What the real Qwen Code runs of the other qwen-code-* tests rarely write, from lines shaped
// as 0.24.4 writes them: its own compaction, a window set in the config, another repo's session, a
// torn line, a model it does not know; where its transcripts are; the evidence of an offline document.
// Read by the same incremental reader the daemon uses.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { AgentConfig } from '../../src/config/agents-config.js';
import { qwenTranscriptMessages } from '../../src/daemon/sources/qwen-code/qwen-evidence.js';
import { dashSlug as qwenSlug } from '../../src/daemon/sources/kit/project-folders.js';
import { isQwenTranscript, qwenProjectsDir } from '../../src/daemon/sources/qwen-code/qwen-paths.js';
import { qwenAgent } from '../../src/daemon/sources/qwen-code/qwen-agent.js';
import { qwenOwnCompactionPoint } from '../../src/daemon/sources/qwen-code/qwen-fold.js';
import { DEFAULT_AGENT_CONFIG } from '../support/agent-config.js';

const ROOT = '/work/repo';
const ID = '82ff93ad-5b5c-40af-bed2-0464f1ba2106';
const CONFIG = DEFAULT_AGENT_CONFIG;

const base = (type: string, cwd = ROOT) => ({
  uuid: crypto.randomUUID(),
  parentUuid: null,
  sessionId: ID,
  timestamp: '2026-12-04T07:38:10.182Z',
  type,
  cwd,
  version: '0.24.4',
  gitBranch: 'main',
});
const user = (text: string, cwd = ROOT) => ({ ...base('user', cwd), message: { role: 'user', parts: [{ text }] } });
const assistant = (parts: unknown[], prompt: number, window = 1_000_000, model = 'qwen3.7-max') => ({
  ...base('assistant'),
  model,
  message: { role: 'model', parts },
  usageMetadata: {
    promptTokenCount: prompt,
    candidatesTokenCount: 7,
    thoughtsTokenCount: 0,
    totalTokenCount: prompt + 7,
    cachedContentTokenCount: prompt - 1000,
  },
  contextWindowSize: window,
});
const compression = (before: number, trigger?: string) => ({
  ...base('system'),
  subtype: 'chat_compression',
  systemPayload: {
    info: { originalTokenCount: before, newTokenCount: 20_000, compressionStatus: 1, ...(trigger ? { triggerReason: trigger } : {}) },
  },
});
const telemetry = () => ({
  ...base('system'),
  subtype: 'ui_telemetry',
  systemPayload: { uiEvent: { 'event.name': 'qwen-code.api_response' } },
});

/** The lines written where Qwen Code keeps them, read once by the source's reader. */
async function read(lines: readonly (object | string)[], config: AgentConfig = CONFIG) {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-qwen-fold-'));
  const folder = path.join(home, 'projects', qwenSlug(ROOT), 'chats');
  await fs.mkdir(folder, { recursive: true });
  const file = path.join(folder, `${ID}.jsonl`);
  await fs.writeFile(file, lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n');
  const source = qwenAgent.createSource({ root: ROOT, env: { QWEN_HOME: home }, config });
  expect(source.matches(file)).toBe(true);
  const update = await source.createReader(file).update();
  await fs.rm(home, { recursive: true, force: true });
  return update;
}

describe('Qwen Code transcripts, edge cases', () => {
  test('qwen: the context is the last promptTokenCount (cached inside it), the window the contextWindowSize Qwen wrote; agents.qwen-code.contextWindow overrides it; a torn line is skipped', async () => {
    const update = await read([
      user('look'),
      telemetry(),
      assistant([{ text: 'a' }], 300_000),
      assistant([{ text: 'b' }], 420_000),
      '{"type":"assist',
    ]);
    expect(update.state).toMatchObject({
      kind: 'qwen-code',
      sessionId: ID,
      model: 'qwen3.7-max',
      maxContextTokens: 1_000_000,
      cwd: ROOT,
      otherRepo: false,
    });
    expect(update.state.latestUsage).toEqual({ prompt_tokens: 420_000, completion_tokens: 7, total_tokens: 420_007 });
    expect(update.state.thresholds).toMatchObject({ handoffAt: 70, compactsAt: 85 });
    expect(update.state.messageCount).toBe(3);
    expect(update.skipped.map((skip) => skip.lineNumber)).toEqual([5]);
    const configured = await read([user('look'), assistant([{ text: 'a' }], 300_000)], { ...CONFIG, contextWindow: 400_000 });
    expect(configured.state.maxContextTokens).toBe(400_000);
    expect(configured.state.overflowed).toBe(true);
  });

  test('qwen: a chat_compression line is Qwen compacting by itself (its context before, /compress marked manual), and the next reading is the smaller context', async () => {
    const update = await read([
      user('go'),
      assistant([{ text: 'a' }], 860_000),
      compression(860_000),
      assistant([{ text: 'b' }], 25_000),
      compression(30_000, 'manual'),
    ]);
    expect(update.state.compactions).toBe(2);
    expect(update.compactionsSeen).toBe(2);
    expect(update.state.lastCompaction).toEqual({ at: '2026-12-04T07:38:10.182Z', preTokens: 30_000, trigger: 'manual' });
    expect(update.state.latestUsage?.prompt_tokens).toBe(25_000);
  });

  test('qwen: a session whose cwd is another repo is not this one’s and never over the threshold here; before the first reply the window comes from the model table', async () => {
    const elsewhere = await read([user('x', '/work/repo-other'), assistant([{ text: 'a' }], 900_000)]);
    expect(elsewhere.state.otherRepo).toBe(true);
    expect(elsewhere.state.overflowed).toBe(false);
    const fresh = await read([user('x')]);
    expect(fresh.state.maxContextTokens).toBe(200_000);
    expect(fresh.state.latestUsage).toBeNull();
  });

  test('qwen: Qwen compacts at min(85% of the window, window − 33,000); a 131,072 window (gpt-4.1) compacts at 74%, and ai-zen hands off 3 points before', async () => {
    expect([1_000_000, 262_144, 200_000, 131_072].map(qwenOwnCompactionPoint)).toEqual([85, 85, 83, 74]);
    const small = await read([user('x'), assistant([{ text: 'a' }], 50_000, 131_072, 'gpt-4.1')]);
    expect(small.state.thresholds).toMatchObject({ compactsAt: 74, handoffAt: 70 });
    const learned = await read([user('x'), assistant([{ text: 'a' }], 50_000, 131_072, 'gpt-4.1')], {
      ...CONFIG,
      models: { 'gpt-4.1': { compactsAt: 60 } },
    });
    expect(learned.state.thresholds).toMatchObject({ compactsAt: 60, handoffAt: 57 });
  });

  test('qwen: transcripts are <runtime>/projects/<slug>/chats/<uuid>.jsonl, <runtime> being QWEN_RUNTIME_DIR, else QWEN_HOME, else ~/.qwen; the runtime.json beside them is no transcript', () => {
    expect(qwenProjectsDir({ HOME: '/home/me' })).toBe('/home/me/.qwen/projects');
    expect(qwenProjectsDir({ HOME: '/home/me', QWEN_HOME: '/q' })).toBe('/q/projects');
    expect(qwenProjectsDir({ HOME: '/home/me', QWEN_HOME: '/q', QWEN_RUNTIME_DIR: '/r' })).toBe('/r/projects');
    const projects = '/q/projects';
    expect(isQwenTranscript(`${projects}/-work-repo/chats/${ID}.jsonl`, projects)).toBe(true);
    expect(isQwenTranscript(`${projects}/-work-repo/chats/${ID}.runtime.json`, projects)).toBe(false);
    expect(isQwenTranscript(`${projects}/-work-repo/${ID}.jsonl`, projects)).toBe(false);
    expect(isQwenTranscript(`${projects}/-work-repo/chats/sub/${ID}.jsonl`, projects)).toBe(false);
  });

  test('qwen: the evidence: the user’s words, write_file/edit as written files, read_file as read, run_shell_command as exec ending in its exit code (from the result, or from Qwen’s text), a failed call as an error', () => {
    const lines = [
      user('add a page'),
      assistant([{ functionCall: { id: 'c1', name: 'write_file', args: { file_path: '/work/repo/docs/a.md', content: '# A' } } }], 10),
      {
        ...base('tool_result'),
        message: { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'write_file', response: { output: 'ok' } } }] },
      },
      assistant([{ functionCall: { id: 'c2', name: 'run_shell_command', args: { command: 'npm test' } } }], 11),
      {
        ...base('tool_result'),
        message: {
          role: 'user',
          parts: [{ functionResponse: { id: 'c2', name: 'run_shell_command', response: { output: 'Command: npm test\nExit Code: 1' } } }],
        },
        toolCallResult: { callId: 'c2', status: 'success', resultDisplay: { type: 'shell_result', exitCode: 1 } },
      },
      assistant([{ functionCall: { id: 'c3', name: 'run_shell_command', args: { command: 'ls' } } }], 12),
      {
        ...base('tool_result'),
        message: {
          role: 'user',
          parts: [{ functionResponse: { id: 'c3', name: 'run_shell_command', response: { output: 'Output: a\nExit Code: 0' } } }],
        },
      },
      assistant([{ functionCall: { id: 'c4', name: 'read_file', args: { file_path: '/work/repo/a.txt' } } }], 13),
      {
        ...base('tool_result'),
        message: { role: 'user', parts: [{ functionResponse: { id: 'c4', name: 'read_file', response: { error: 'no such file' } } }] },
      },
      assistant([{ text: 'thinking', thought: true }, { text: 'Done.' }], 14),
    ].map((line) => JSON.stringify(line));
    const messages = qwenTranscriptMessages(lines).map((entry) => entry.message);
    expect(messages[0]).toEqual({ role: 'user', content: 'add a page' });
    const calls = messages
      .flatMap((message) => message.tool_calls ?? [])
      .map((call) => [call.function.name, JSON.parse(call.function.arguments)]);
    expect(calls).toEqual([
      ['write', { path: '/work/repo/docs/a.md' }],
      ['exec', { command: 'npm test' }],
      ['exec', { command: 'ls' }],
      ['read', { path: '/work/repo/a.txt' }],
    ]);
    const results = messages.filter((message) => message.role === 'tool').map((message) => message.content as string);
    expect(results[1]).toMatch(/\[exit code 1\]$/);
    expect(results[2]).toMatch(/\[exit code 0\]$/);
    expect(results[3]).toBe('error: no such file');
    expect(messages.at(-1)).toEqual({ role: 'assistant', content: 'Done.' });
  });
});
