// Cline CLI sessions from files shaped as 3.0.65 writes them (seen in the real client's session
// folders): the manifest `<id>.json` whose cwd says whose session it is, and `<id>.messages.json`
// rewritten whole, pretty-printed, each reply with its metrics. Read by the same reader the daemon
// uses, in real temp folders.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { AgentConfig } from '../../src/config/agents-config.js';
import { clineAgent } from '../../src/daemon/sources/cline/cline-agent.js';
import { clineSessionsDir } from '../../src/daemon/sources/cline/cline-paths.js';
import { DEFAULT_AGENT_CONFIG } from '../support/agent-config.js';

const CONFIG = DEFAULT_AGENT_CONFIG;
const ID = '1796466492763_ioic5';

const manifest = (cwd: string) => ({
  version: 1,
  session_id: ID,
  source: 'cli',
  pid: 20978,
  started_at: '2026-12-05T10:28:12.767Z',
  status: 'running',
  interactive: false,
  provider: 'openai-compatible',
  model: 'gpt-4.1',
  cwd,
  workspace_root: cwd,
  enable_tools: true,
  enable_spawn: true,
  enable_teams: true,
  prompt: 'say hello',
});
const user = (text: string) => ({
  id: 'u1',
  role: 'user',
  content: [{ type: 'text', text: `<user_input mode="act">${text}</user_input>` }],
  ts: 1796466493448,
});
const reply = (inputTokens: number, content: object[] = [{ type: 'text', text: 'All done here.' }], model = 'gpt-4.1') => ({
  id: 'msg_psQhpoDs',
  role: 'assistant',
  content,
  ts: 1796466494725,
  modelInfo: { id: model, provider: 'openai-compatible' },
  metrics: { inputTokens, outputTokens: 50, cacheReadTokens: 1000, cacheWriteTokens: 0 },
});
const result = (id: string, name: string, content: unknown) => ({
  id: 'r1',
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, name, content }],
  ts: 1,
});
const messagesFile = (messages: object[]) =>
  `${JSON.stringify({ version: 1, updated_at: '2026-12-05T10:28:14.800Z', agent: 'lead', sessionId: ID, origin: { source: 'cli', mode: 'user', sessionId: ID }, messages, system_prompt: 'You are Cline.\n"inputTokens": 999999' }, null, 2)}\n`;

let home: string;
let repo: string;
let sessions: string;
beforeEach(async () => {
  home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-cline-')));
  repo = path.join(home, 'repo');
  await fs.mkdir(path.join(repo, '.git'), { recursive: true });
  sessions = clineSessionsDir({ HOME: home });
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

async function writeSession(cwd: string, messages: object[]): Promise<string> {
  const folder = path.join(sessions, ID);
  await fs.mkdir(folder, { recursive: true });
  await fs.writeFile(path.join(folder, `${ID}.json`), `${JSON.stringify(manifest(cwd), null, 2)}\n`);
  const file = path.join(folder, `${ID}.messages.json`);
  await fs.writeFile(file, messagesFile(messages));
  return file;
}

const source = (config: AgentConfig = CONFIG, env: Record<string, string> = { HOME: home }) =>
  clineAgent.createSource({ root: repo, env, config });

describe('Cline CLI sessions', () => {
  test('the last reply’s inputTokens over the window Cline runs an unknown model by (128k) is the context', async () => {
    const file = await writeSession(repo, [user('say hello'), reply(12_000), user('more'), reply(64_000)]);
    const reader = source().createReader(file);
    const { state } = await reader.update();
    expect(state.sessionId).toBe(ID);
    expect(state.model).toBe('gpt-4.1');
    expect(state.maxContextTokens).toBe(128_000);
    expect(state.latestUsage).toMatchObject({ prompt_tokens: 64_000, completion_tokens: 50 });
    expect(state.messageCount).toBe(2);
    expect(state.thresholds).toMatchObject({ handoffAt: 70, compactsAt: 90 });
    expect(state.overflowed).toBe(false);
    reader.release();
  });

  test('the file rewritten whole with a reply past the threshold is read again and crosses it', async () => {
    const file = await writeSession(repo, [user('say hello'), reply(12_000)]);
    const reader = source().createReader(file);
    expect((await reader.update()).state.overflowed).toBe(false);
    await fs.writeFile(`${file}.tmp`, messagesFile([user('say hello'), reply(12_000), user('go on'), reply(100_000)]));
    await fs.rename(`${file}.tmp`, file);
    const update = await reader.update();
    expect(update.state.latestUsage?.prompt_tokens).toBe(100_000);
    expect(update.overflowStarted).toBe(true);
    reader.release();
  });

  test('a window set in config beats Cline’s default', async () => {
    const file = await writeSession(repo, [user('hi'), reply(100_000)]);
    const reader = source({ ...CONFIG, contextWindow: 1_000_000 }).createReader(file);
    const { state } = await reader.update();
    expect(state.maxContextTokens).toBe(1_000_000);
    expect(state.overflowed).toBe(false);
    reader.release();
  });

  test('another repo’s session is never read, and its folder is not watched', async () => {
    const elsewhere = path.join(home, 'other');
    const file = await writeSession(elsewhere, [user('hi'), reply(120_000)]);
    const watched = source();
    expect((await watched.folders.list()).folders).toEqual([]);
    const update = await watched.createReader(file).update();
    expect(update.state.otherRepo).toBe(true);
    expect(update.state.latestUsage).toBeNull();
  });

  test('this repo’s session folder is watched, and only `<id>/<id>.messages.json` is a session', async () => {
    const file = await writeSession(path.join(repo, 'src'), [user('hi'), reply(1)]);
    const watched = source();
    expect((await watched.folders.list()).folders).toEqual([path.dirname(file)]);
    expect(watched.matches(file)).toBe(true);
    expect(watched.matches(path.join(path.dirname(file), 'agent_2.messages.json'))).toBe(false);
    expect(watched.matches(path.join(path.dirname(file), `${ID}.json`))).toBe(false);
  });

  test('a manifest whose cwd comes after a long first prompt is still read as this repo’s', async () => {
    const file = await writeSession(repo, [user('hi'), reply(1)]);
    const manifestFile = path.join(path.dirname(file), `${ID}.json`);
    const { cwd, ...rest } = manifest(repo);
    // The prompt, 10 KB long, written before the cwd: past the first small read of the head.
    const long = { ...rest, prompt: 'x'.repeat(10_000), cwd };
    await fs.writeFile(manifestFile, `${JSON.stringify(long, null, 2)}\n`);
    expect((await source().folders.list()).folders).toEqual([path.dirname(file)]);
  });

  test('a manifest caught mid-write (Cline writes it in place) leaves the folder undecided, and it is this repo’s once written', async () => {
    const file = await writeSession(repo, [user('hi'), reply(1)]);
    const manifestFile = path.join(path.dirname(file), `${ID}.json`);
    const written = await fs.readFile(manifestFile, 'utf8');
    await fs.writeFile(manifestFile, '');
    const watched = source();
    expect(await watched.folders.list()).toEqual({ folders: [], parents: [sessions, path.dirname(file)] });
    await fs.writeFile(manifestFile, written);
    expect((await watched.folders.list()).folders).toEqual([path.dirname(file)]);
  });

  test('CLINE_SESSION_DATA_DIR, CLINE_DATA_DIR and CLINE_DIR are followed, in that order', () => {
    expect(clineSessionsDir({ HOME: home })).toBe(path.join(home, '.cline', 'data', 'sessions'));
    expect(clineSessionsDir({ HOME: home, CLINE_DIR: '/c' })).toBe('/c/data/sessions');
    expect(clineSessionsDir({ HOME: home, CLINE_DIR: '/c', CLINE_DATA_DIR: '/d' })).toBe('/d/sessions');
    expect(clineSessionsDir({ HOME: home, CLINE_DATA_DIR: '/d', CLINE_SESSION_DATA_DIR: '/s' })).toBe('/s');
  });

  test('its evidence: the person’s words (not a hook’s context), the commands run and the files patched', async () => {
    const file = await writeSession(repo, [
      user('add c.txt'),
      reply(20_000, [{ type: 'tool_use', id: 'call_1', name: 'run_commands', input: { commands: ['ls'] } }]),
      result('call_1', 'run_commands', [{ query: 'ls', result: 'a.txt\n', success: true }]),
      reply(30_000, [
        {
          type: 'tool_use',
          id: 'call_2',
          name: 'apply_patch',
          input: { input: '*** Begin Patch\n*** Add File: c.txt\n+hello\n*** End Patch' },
        },
      ]),
      result('call_2', 'apply_patch', '{"query":"apply_patch","result":"Successfully applied patch","success":true}'),
      {
        id: 'h1',
        role: 'user',
        content: [{ type: 'text', text: '<hook_context source="PostToolUse">\nnot the person\n</hook_context>' }],
        ts: 2,
        metadata: { userRunSpan: 0, displayRole: 'system' },
      },
      reply(40_000, [{ type: 'text', text: 'Done.' }]),
    ]);
    const { messages } = await source().handoff!.readEvidence(file);
    const shown = messages.map(({ message }) =>
      message.tool_calls
        ? message.tool_calls.map((call) => `${call.function.name} ${call.function.arguments}`).join()
        : `${message.role}: ${String(message.content)}`,
    );
    expect(shown).toEqual([
      'user: add c.txt',
      'exec {"command":"ls"}',
      'tool: a.txt\n\n[exit code 0]',
      'write {"path":"c.txt"}',
      'tool: ok',
      'assistant: Done.',
    ]);
  });
});
