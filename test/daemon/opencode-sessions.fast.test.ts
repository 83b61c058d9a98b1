// opencode's sessions read from a database a test wrote in opencode 1.x's schema, in-process: only
// this repo's sessions (its `directory`, not a repo whose path shares the prefix, not a subagent's),
// the context as opencode's gauge counts it over the window its provider config gives, each message
// counted once as it streams, its compactions, its evidence — and the database only ever read: the
// WAL's rows seen before any checkpoint, opencode's writer never kept waiting, not one byte changed.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { opencodeAgent } from '../../src/daemon/sources/opencode/opencode-agent.js';
import { isOpencodeSessionLive, type SessionPlace } from '../../src/daemon/sources/opencode/opencode-liveness.js';
import type { FolderSessions, SessionUpdate, WatchedSource } from '../../src/daemon/watching/session-source.js';
import { silentLogger } from '../../src/log/logger.js';
import { memoryLogger } from '../support/memory-logger.js';
import { deleteOpencodeSession, openOpencodeWriter, type TestSession, writeOpencodeDatabase } from '../support/opencode-database.js';
import { DEFAULT_AGENT_CONFIG } from '../support/agent-config.js';

const CONFIG = DEFAULT_AGENT_CONFIG;

const assistant = (tokens: { input: number; output: number; read?: number; write?: number }, extra: object = {}) => ({
  role: 'assistant',
  providerID: 'fake',
  modelID: 'fake-model',
  tokens: { input: tokens.input, output: tokens.output, reasoning: 0, cache: { read: tokens.read ?? 0, write: tokens.write ?? 0 } },
  ...extra,
});
const user = (text: string) => ({ role: 'user', parts: [{ type: 'text', text }] });

describe('opencode sessions read from its database', () => {
  let home: string;
  let root: string;
  let database: string;
  let source: WatchedSource;
  let watcher: FolderSessions | null;
  let updates: SessionUpdate[];

  beforeEach(async () => {
    home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-opencode-')));
    root = path.join(home, 'repo');
    await fs.mkdir(root);
    database = path.join(home, '.local', 'share', 'opencode', 'opencode.db');
    // opencode's own config: the fake provider's model has a 100k window and a 4,096-token output limit.
    await fs.mkdir(path.join(home, '.config', 'opencode'), { recursive: true });
    await fs.writeFile(
      path.join(home, '.config', 'opencode', 'opencode.jsonc'),
      '{\n  // the fake provider\n  "provider": {"fake": {"models": {"fake-model": {"limit": {"context": 100000, "output": 4096,},},},},},\n}\n',
    );
    source = opencodeAgent.createSource({ root, env: { HOME: home }, config: CONFIG });
    watcher = null;
    updates = [];
  });
  afterEach(async () => {
    await watcher?.close();
    await fs.rm(home, { recursive: true, force: true });
  });

  const watch = async () => {
    const { folders } = await source.folders.list();
    expect(folders).toEqual([path.dirname(database)]);
    watcher = source.watchFolder!({ folder: folders[0]!, logger: silentLogger(), onUpdate: (update) => updates.push(update) });
    await watcher.list();
    return watcher;
  };
  const session = (id: string, directory: string, messages: TestSession['messages'], extra: Partial<TestSession> = {}): TestSession => ({
    id,
    directory,
    messages,
    ...extra,
  });

  it('lists no folder until opencode has a database: libsql is never loaded for a user without opencode', async () => {
    const { folders, parents } = await source.folders.list();
    expect(folders).toEqual([]);
    expect(parents).toEqual([path.join(home, '.local', 'share'), path.dirname(database)]);
  });

  it("lists only this repo's sessions (its folder and subfolders), with the context opencode counts over its config's window", async () => {
    await writeOpencodeDatabase(database, [
      session('ses_mine', root, [user('look at it'), assistant({ input: 49_000, output: 20, read: 1_000 })]),
      session('ses_sub', path.join(root, 'pkg'), [user('in a subfolder'), assistant({ input: 10_000, output: 0, write: 2_000 })]),
      session('ses_other', `${root}-other`, [user('elsewhere'), assistant({ input: 90_000, output: 10 })]),
      session('ses_child', root, [user('a subagent'), assistant({ input: 80_000, output: 10 })], { parentId: 'ses_mine' }),
    ]);
    const sessions = await watch();
    const states = sessions.states();
    expect(states.map((state) => state.sessionId).sort()).toEqual(['ses_mine', 'ses_sub']);
    const mine = sessions.state(`${database}#ses_mine`)!;
    expect(mine).toMatchObject({
      kind: 'opencode',
      model: 'fake/fake-model',
      maxContextTokens: 100_000,
      latestUsage: { prompt_tokens: 50_020, completion_tokens: 20, total_tokens: 50_020 },
      messageCount: 2,
      cwd: root,
      otherRepo: false,
      overflowed: false,
    });
    // opencode compacts once the context leaves less than the model's output limit: (100,000 − 4,096) / 100,000.
    expect(mine.thresholds).toMatchObject({ handoffAt: 70, compactsAt: 95 });
    expect(sessions.state(`${database}#ses_sub`)!.latestUsage?.prompt_tokens).toBe(12_000);
    expect(updates.map((update) => update.state.sessionId).sort()).toEqual(['ses_mine', 'ses_sub']);
  });

  it('a session deleted in opencode leaves the list at the next read, said as a gone transcript is; the others stay', async () => {
    await writeOpencodeDatabase(database, [
      session('ses_kept', root, [user('keep me'), assistant({ input: 20_000, output: 10 })]),
      session('ses_gone', root, [user('delete me'), assistant({ input: 30_000, output: 10 })]),
    ]);
    const sessions = await watch();
    expect(
      sessions
        .states()
        .map((state) => state.sessionId)
        .sort(),
    ).toEqual(['ses_gone', 'ses_kept']);
    deleteOpencodeSession(database, 'ses_gone');
    await sessions.refresh('');
    expect(sessions.states().map((state) => state.sessionId)).toEqual(['ses_kept']);
    expect(updates.at(-1)).toMatchObject({ missing: true, state: { sessionId: 'ses_gone' } });
  });

  it('sees the rows of a writer that keeps its connection open (in the WAL, before any checkpoint), never makes it wait, and changes no byte', async () => {
    await fs.mkdir(path.dirname(database), { recursive: true });
    const writer = openOpencodeWriter(database);
    try {
      writer.add(session('ses_live', root, [user('first'), assistant({ input: 30_000, output: 10 })]));
      const sha = async (file: string) =>
        createHash('sha256')
          .update(await fs.readFile(file))
          .digest('hex');
      const bytes = async () => [await sha(database), await sha(`${database}-wal`)];
      const before = await bytes();
      const sessions = await watch();
      expect(sessions.state(`${database}#ses_live`)?.latestUsage?.prompt_tokens).toBe(30_010);
      expect(await bytes()).toEqual(before);
      // The reader's connection stays open between reads: the writer goes on at once (no SQLITE_BUSY).
      writer.add(
        session('ses_live', root, [
          user('first'),
          assistant({ input: 30_000, output: 10 }),
          user('more'),
          assistant({ input: 75_000, output: 5 }),
        ]),
      );
      await sessions.refresh('');
      const state = sessions.state(`${database}#ses_live`)!;
      expect(state.latestUsage?.prompt_tokens).toBe(75_005);
      expect(state.messageCount).toBe(4);
      expect(state.overflowed).toBe(true);
      expect(updates.at(-1)).toMatchObject({ overflowStarted: true, usageChanged: true });
    } finally {
      writer.close();
    }
  });

  it('counts a message once while it streams (its tokens come with its end), and a summary message as a compaction', async () => {
    await writeOpencodeDatabase(database, [
      session('ses_s', root, [user('go'), { role: 'assistant', providerID: 'fake', modelID: 'fake-model' }]),
    ]);
    const sessions = await watch();
    expect(sessions.state(`${database}#ses_s`)).toMatchObject({ messageCount: 2, latestUsage: null, model: 'fake/fake-model' });
    await writeOpencodeDatabase(database, [
      session('ses_s', root, [
        user('go'),
        assistant({ input: 90_000, output: 100 }),
        user('compact'),
        assistant({ input: 90_500, output: 900 }, { summary: true }),
        user('next'),
        assistant({ input: 3_000, output: 10 }),
      ]),
    ]);
    await sessions.refresh('');
    const state = sessions.state(`${database}#ses_s`)!;
    expect(state.messageCount).toBe(6);
    expect(state.compactions).toBe(1);
    expect(state.lastCompaction?.preTokens).toBe(90_100);
    expect(state.latestUsage?.prompt_tokens).toBe(3_010);
  });

  it('a file at the database path that is not a database is one warning, no session and no throw; read once it becomes one', async () => {
    await fs.mkdir(path.dirname(database), { recursive: true });
    await fs.writeFile(database, 'not a database\n'.repeat(1000));
    const memory = memoryLogger();
    const { folders } = await source.folders.list();
    watcher = source.watchFolder!({ folder: folders[0]!, logger: memory.logger, onUpdate: (update) => updates.push(update) });
    await watcher.list();
    expect(watcher.states()).toEqual([]);
    expect(memory.at('warn').map((record) => record.msg)).toEqual(['could not read the opencode database']);
    await fs.rm(database);
    await writeOpencodeDatabase(database, [session('ses_late', root, [user('hi'), assistant({ input: 1_000, output: 1 })])]);
    await watcher.refresh('');
    expect(watcher.state(`${database}#ses_late`)?.latestUsage?.prompt_tokens).toBe(1_001);
  });

  it('a session is live while an opencode process runs in its directory and it is the one of that directory written last; a hook under it is no opencode', async () => {
    await writeOpencodeDatabase(database, [
      session('ses_old', root, [user('old'), assistant({ input: 1_000, output: 1 })], { at: Date.UTC(2026, 11, 5, 9) }),
      session('ses_new', root, [user('new'), assistant({ input: 2_000, output: 1 })], { at: Date.UTC(2026, 11, 5, 10) }),
    ]);
    const sessions = (await watch()) as unknown as SessionPlace;
    const proc = path.join(home, 'proc');
    const process_ = async (pid: number, cwd: string, argv: readonly string[]) => {
      await fs.mkdir(path.join(proc, String(pid)), { recursive: true });
      await fs.symlink(cwd, path.join(proc, String(pid), 'cwd'));
      await fs.writeFile(path.join(proc, String(pid), 'cmdline'), `${argv.join('\0')}\0`);
    };
    await process_(10, root, ['sh', '-c', '/home/u/.ai-zen/bin/ai-zen-hook hook opencode Stop']);
    expect(await isOpencodeSessionLive(`${database}#ses_new`, sessions, proc)).toBe(false);
    await process_(11, root, ['/usr/lib/node_modules/opencode-ai/bin/opencode.exe', 'serve']);
    expect(await isOpencodeSessionLive(`${database}#ses_new`, sessions, proc)).toBe(true);
    expect(await isOpencodeSessionLive(`${database}#ses_old`, sessions, proc)).toBe(false);
    expect(await isOpencodeSessionLive(`${database}#ses_new`, sessions, proc, [11])).toBe(false);
  });

  it('skips rows that are not opencode messages without throwing, and reads no usage from them', async () => {
    await writeOpencodeDatabase(database, [
      session('ses_junk', root, ['', 'not json', '[1,2,3]', '{"role":', 'null', '{"role":"assistant","tokens":{"input":-5,"output":1}}']),
    ]);
    const sessions = await watch();
    const state = sessions.state(`${database}#ses_junk`)!;
    expect(state.latestUsage).toBeNull();
    expect(updates[0]!.skipped).toHaveLength(6);
  });

  it("its evidence: the user's words, the assistant's text, a command with its exit code, a file written under its repo path", async () => {
    await writeOpencodeDatabase(database, [
      session('ses_e', root, [
        user('write the notes'),
        {
          ...assistant({ input: 1_000, output: 10 }),
          parts: [
            { type: 'step-start' },
            { type: 'text', text: 'Writing them.' },
            {
              type: 'tool',
              tool: 'bash',
              callID: 'call_1',
              state: { status: 'completed', input: { command: 'echo step > notes.txt; false' }, output: '', metadata: { exit: 1 } },
            },
            {
              type: 'tool',
              tool: 'write',
              callID: 'call_2',
              state: { status: 'completed', input: { filePath: path.join(root, 'src', 'a.ts'), content: 'x' }, output: 'ok' },
            },
          ],
        },
      ]),
    ]);
    const { messages } = await source.handoff!.readEvidence(`${database}#ses_e`);
    expect(messages.map((entry) => entry.message)).toEqual([
      { role: 'user', content: 'write the notes' },
      {
        role: 'assistant',
        content: 'Writing them.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'exec', arguments: JSON.stringify({ command: 'echo step > notes.txt; false' }) },
          },
          { id: 'call_2', type: 'function', function: { name: 'write', arguments: JSON.stringify({ path: 'src/a.ts' }) } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '\n[exit code 1]' },
      { role: 'tool', tool_call_id: 'call_2', content: 'ok' },
    ]);
  });
});
