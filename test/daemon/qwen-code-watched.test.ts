// Issue 24 (X3) with the real Qwen Code client (`@qwen-code/qwen-code` 0.24.4) driven offline against
// the fake OpenAI-compatible server, in a temp repo and a temp HOME, while a real daemon watches: the
// transcripts it reads are the ones the client itself wrote under ~/.qwen/projects/<slug>/chats/.
// One run of the client per case, all at once, each answered by what its prompt asks.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { connectIpc } from '../../src/ipc/client.js';
import { createQwenCodeSource } from '../../src/daemon/sources/qwen-code/qwen-source.js';
import type { SessionInfo } from '../../src/daemon/side-channels/status-schema.js';
import { shortId } from '../../src/short-id.js';
import { type FakeOpenAI, type FakeUsage, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { makeQwenHome, QWEN_DEFAULT_MODEL, QWEN_DEFAULT_WINDOW, type QwenHome, qwenTranscripts, runQwen } from '../support/qwen-client.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

/** A model pinned by OPENAI_MODEL, and the window Qwen gives it (its own table: 256k). */
const PINNED_MODEL = 'qwen3-max';
const PINNED_WINDOW = 262_144;

/** Qwen's own (main) requests: not a side request of the client's (titles, memory, checks). */
const isMain = (body: { messages?: { role?: string; content?: unknown }[] }) => {
  const system = body.messages?.[0];
  return system?.role === 'system' && JSON.stringify(system.content ?? '').includes('You are Qwen Code');
};

describe('issue 24 Qwen Code sessions, with the real client', { timeout: 240_000 }, () => {
  let fake: FakeOpenAI;
  let daemon: DaemonRepo;
  let qwen: QwenHome;
  let elsewhere: string;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    daemon = await makeDaemonRepo({ config: { agents: { 'qwen-code': { graceSeconds: 0 } } } });
    qwen = await makeQwenHome(path.dirname(daemon.root));
    // The daemon and the client share the same ~/.qwen (the harness gives the daemon an empty one).
    Object.assign(daemon.env, qwen.env);
    elsewhere = path.join(path.dirname(daemon.root), 'elsewhere');
    await fs.mkdir(elsewhere);
    // Each prompt names its reading; cached tokens are part of Qwen's prompt count, never added twice.
    const usage = (prompt: number, cached = 0) =>
      ({ prompt_tokens: prompt, completion_tokens: 120, prompt_tokens_details: { cached_tokens: cached } }) as FakeUsage;
    fake.handle((request) => {
      if (!isMain(request.body)) return reply().text('ok').usage({ prompt_tokens: 10, completion_tokens: 1 });
      if (request.lastUserText.includes('work elsewhere')) return reply().text('other repo').usage(usage(800_000));
      if (request.lastUserText.includes('look at the README')) return reply().text('Looked at it.').usage(usage(400_000, 300_000));
      if (request.lastUserText.includes('pinned model')) return reply().text('On the pinned model.').usage(usage(100_000));
      return undefined;
    });
  }, 300_000);
  afterAll(async () => {
    await daemon?.cleanup();
    await fake?.close();
  });

  it('issue 24 qwen: a Qwen Code session in this repo is listed by status, status --json and sessions over IPC with the context Qwen counts and the window it reports, on its default model and on a pinned one; a session of another repo is neither listed nor watched', async () => {
    await daemon.start();
    const runs = await Promise.all([
      runQwen('work elsewhere', { cwd: elsewhere, home: qwen, baseURL: fake.baseURL }),
      runQwen('look at the README', { cwd: daemon.root, home: qwen, baseURL: fake.baseURL }),
      runQwen('answer on the pinned model', { cwd: daemon.root, home: qwen, baseURL: fake.baseURL, model: PINNED_MODEL }),
    ]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    expect(runs[1]!.stdout).toContain('Looked at it.');

    const qwenSessions = async () => (await daemon.status()).sessions.filter((session) => session.agent === 'qwen-code');
    const listed = await waitFor(
      async () => ((await qwenSessions()).filter((session) => session.promptTokens !== null).length === 2 ? await qwenSessions() : null),
      {
        timeoutMs: 60_000,
        message: 'both Qwen Code sessions of this repo listed with a reading',
      },
    );
    const byModel = (model: string) => listed.find((session) => session.model === model);
    // The default model: Qwen's own count (the prompt, its 300k cached tokens inside it) of its own 1M window.
    expect(byModel(QWEN_DEFAULT_MODEL)).toMatchObject({
      agent: 'qwen-code',
      promptTokens: 400_000,
      maxContextTokens: QWEN_DEFAULT_WINDOW,
      percent: 40,
      handoffAt: 70,
      compactsAt: 85,
      overflowed: false,
      owner: 'none',
    });
    // The pinned model: the window Qwen reported for it, not the default's.
    expect(byModel(PINNED_MODEL)).toMatchObject({
      agent: 'qwen-code',
      promptTokens: 100_000,
      maxContextTokens: PINNED_WINDOW,
      percent: Math.floor((100_000 * 100) / PINNED_WINDOW),
      handoffAt: 70,
      compactsAt: 85,
    });
    const transcripts = await qwenTranscripts(qwen);
    expect(transcripts).toHaveLength(3);
    for (const session of listed) {
      expect(session.transcript).toMatch(/\/\.qwen\/projects\/[^/]+\/chats\/[0-9a-f-]+\.jsonl$/);
      expect(transcripts).toContain(session.transcript);
      expect(path.basename(session.transcript!, '.jsonl')).toBe(session.id);
    }

    // The same over IPC (`sessions`) and in the plain status a person reads.
    const client = await connectIpc({ socketPath: daemon.socketPath, repoRoot: daemon.root, timeoutMs: 5000 });
    try {
      const reply = await client.request<{ sessions: SessionInfo[] }>('sessions', {});
      const overIpc = reply.sessions.filter((session) => session.agent === 'qwen-code');
      expect(overIpc.map((session) => [session.id, session.promptTokens, session.maxContextTokens]).sort()).toEqual(
        listed.map((session) => [session.id, session.promptTokens, session.maxContextTokens]).sort(),
      );
    } finally {
      await client.close();
    }
    const plain = await daemon.daemon(['status']);
    expect(plain.code).toBe(0);
    const line = plain.stdout.split('\n').find((text) => text.includes(shortId(byModel(QWEN_DEFAULT_MODEL)!.id)));
    expect(line).toContain('40%');
    expect(line).toContain('qwen-code (hands off at 70%, compacts itself at ~85%)');

    // Another repo's session: never listed, and its folder is not among those the source watches.
    const other = transcripts.find((file) => !listed.some((session) => session.transcript === file));
    expect(other).toBeDefined();
    const source = createQwenCodeSource({
      root: daemon.root,
      env: daemon.env,
      config: (await loadConfig({ root: daemon.root, env: daemon.env })).agents['qwen-code'],
    });
    const { folders } = await source.folders.list();
    expect(folders).toEqual([path.dirname(listed[0]!.transcript!)]);
    expect(folders).not.toContain(path.dirname(other!));
    expect((await qwenSessions()).map((session) => session.transcript)).not.toContain(other);
  });
});
