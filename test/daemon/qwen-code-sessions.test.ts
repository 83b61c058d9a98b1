// With the real Qwen Code client (`@qwen-code/qwen-code` 0.24.4) offline against
// the fake OpenAI-compatible server, in a temp repo and a temp HOME, while a real daemon watches the
// transcripts the client itself writes under ~/.qwen/projects/<slug>/chats/. Four runs at once, shared by
// both tests: one in another repo, one on Qwen's default model and one on a pinned model that cross
// agents.qwen-code.handoffAt (the pinned one waits, below it, until the first is committed), and one
// that stays below and is handed off by hand.
import { parse as parseShell } from 'shell-quote';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { qwenAgent } from '../../src/daemon/sources/qwen-code/qwen-agent.js';
import type { SessionInfo } from '../../src/daemon/side-channels/status-schema.js';
import { connectIpc } from '../../src/ipc/client.js';
import { shortId } from '../../src/short-id.js';
import { type FakeOpenAI, type FakeUsage, type RecordedRequest, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import {
  makeQwenHome,
  QWEN_DEFAULT_MODEL,
  QWEN_DEFAULT_WINDOW,
  type QwenHome,
  type QwenResult,
  qwenTranscripts,
  runQwen,
} from '../support/qwen-client.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const PINNED_MODEL = 'qwen3-max';
const PINNED_WINDOW = 262_144;
const share = (window: number, percent: number) => Math.round((window * percent) / 100);
/** The session that stays below the threshold: 20% of the default model's window. */
const BELOW = 200_000;

const sha = async (file: string) =>
  createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');

/** Qwen's own (main) requests, not a side request of the client's. */
const isMain = (request: RecordedRequest) => JSON.stringify(request.messages[0]?.content ?? '').includes('You are Qwen Code');
/** How many replies of this session the request already carries: the step of the scripted turn. */
const stepOf = (request: RecordedRequest) => request.messages.filter((message) => message?.role === 'assistant').length;

describe('Qwen Code sessions, with the real client', { timeout: 300_000 }, () => {
  let fake: FakeOpenAI;
  let daemon: DaemonRepo;
  let qwen: QwenHome;
  let elsewhere: string;
  let running: Promise<QwenResult[]>;
  let otherRepoRun: Promise<QwenResult>;
  let releaseSecond!: () => void;
  const firstCommitted = new Promise<void>((resolve) => (releaseSecond = resolve));

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    daemon = await makeDaemonRepo({ config: { agents: { 'qwen-code': { graceSeconds: 0 } } } });
    qwen = await makeQwenHome(path.dirname(daemon.root));
    Object.assign(daemon.env, qwen.env);
    const page = path.join(daemon.root, 'docs', 'hello.md');
    fake.handle(async (request) => {
      if (!isMain(request)) return reply().text('ok').usage({ prompt_tokens: 10, completion_tokens: 1 });
      const asked = JSON.stringify(request.messages);
      const step = stepOf(request);
      // A successor started from a document (its text quotes the earlier requests): answered first.
      if (asked.includes('Read the handoff document'))
        return reply().text('Reading the handoff document.').usage({ prompt_tokens: 12_000, completion_tokens: 5 });
      // Default model: a write and a command at 30%, then the reply that crosses 70% of its 1M window.
      if (asked.includes('add a hello page under docs/')) {
        if (step === 0)
          return reply()
            .tool('write_file', { file_path: page, content: '# Hello\n' })
            .usage({ prompt_tokens: share(QWEN_DEFAULT_WINDOW, 30), completion_tokens: 40 });
        if (step === 1)
          return reply()
            .tool('run_shell_command', { command: 'test -f docs/hello.md', description: 'check the page' })
            .usage({ prompt_tokens: share(QWEN_DEFAULT_WINDOW, 31), completion_tokens: 20 });
        return reply()
          .text('Added docs/hello.md.')
          .usage({ prompt_tokens: share(QWEN_DEFAULT_WINDOW, 72), completion_tokens: 20 });
      }
      // Pinned model: 30%, then 72% of the 262,144 window Qwen gives it.
      if (asked.includes('fix the flag parser')) {
        if (step === 0)
          return reply()
            .tool('run_shell_command', { command: 'ls', description: 'look around' })
            .usage({ prompt_tokens: share(PINNED_WINDOW, 30), completion_tokens: 20 });
        // Held at 30% until the first document is committed, so the listing test sees it there. (It
        // once also kept two crossings apart: the second document failed F2 against the HEAD the
        // first commit had moved; 444cdc8 checks each document against the facts it was written from.)
        await firstCommitted;
        return reply()
          .text('The flag parser is in src/cli.ts.')
          .usage({ prompt_tokens: share(PINNED_WINDOW, 72), completion_tokens: 20 });
      }
      // Below the threshold: 200k of which 150k cached (Qwen's prompt count holds them: never added twice).
      if (asked.includes('find where the config is parsed'))
        return reply()
          .text('The parser is in src/parse.ts.')
          .usage({ prompt_tokens: BELOW, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 150_000 } } as FakeUsage);
      if (asked.includes('work elsewhere'))
        return reply()
          .text('other repo')
          .usage({ prompt_tokens: share(QWEN_DEFAULT_WINDOW, 80), completion_tokens: 5 });
      return undefined;
    });
    elsewhere = path.join(path.dirname(daemon.root), 'elsewhere');
    await fs.mkdir(elsewhere);
    await daemon.start();
    const options = { cwd: daemon.root, home: qwen, baseURL: fake.baseURL };
    running = Promise.all([
      runQwen('add a hello page under docs/', options),
      runQwen('fix the flag parser', { ...options, model: PINNED_MODEL }),
      runQwen('find where the config is parsed', options),
    ]);
    otherRepoRun = runQwen('work elsewhere', { ...options, cwd: elsewhere });
    // Never left waiting: a failed test must not hold the pinned run's reply.
    running.catch(() => {});
    otherRepoRun.catch(() => {});
  }, 300_000);
  afterAll(async () => {
    releaseSecond();
    await Promise.all([running?.catch(() => {}), otherRepoRun?.catch(() => {})]);
    await daemon?.cleanup();
    await fake?.close();
  });

  it('qwen: Qwen Code sessions of this repo are listed by status, status --json and sessions over IPC with the context Qwen counts (cached tokens inside) and the window it reports, on its default model and on a pinned one; a session of another repo is neither listed nor watched', async () => {
    const qwenSessions = async () => (await daemon.status()).sessions.filter((session) => session.agent === 'qwen-code');
    // The pinned session waits at its first reading until a document is committed: both are listed meanwhile.
    const listed = await waitFor(
      async () => {
        const sessions = await qwenSessions();
        return sessions.some((session) => session.promptTokens === BELOW) &&
          sessions.some((session) => session.promptTokens === share(PINNED_WINDOW, 30))
          ? sessions
          : null;
      },
      { timeoutMs: 150_000, message: 'the Qwen Code sessions below the threshold listed with their readings' },
    );
    const below = listed.find((session) => session.promptTokens === BELOW)!;
    const pinned = listed.find((session) => session.promptTokens === share(PINNED_WINDOW, 30))!;
    expect(below).toMatchObject({
      model: QWEN_DEFAULT_MODEL,
      maxContextTokens: QWEN_DEFAULT_WINDOW,
      percent: 20,
      handoffAt: 70,
      compactsAt: 85,
      overflowed: false,
      owner: 'none',
    });
    expect(pinned).toMatchObject({
      model: PINNED_MODEL,
      maxContextTokens: PINNED_WINDOW,
      percent: Math.floor((share(PINNED_WINDOW, 30) * 100) / PINNED_WINDOW),
      handoffAt: 70,
      compactsAt: 85,
    });
    for (const session of [below, pinned]) {
      expect(session.transcript).toMatch(/\/\.qwen\/projects\/[^/]+\/chats\/[0-9a-f-]+\.jsonl$/);
      expect(path.basename(session.transcript!, '.jsonl')).toBe(session.id);
    }
    // The same over IPC (`sessions`) and in the plain status a person reads.
    const client = await connectIpc({ socketPath: daemon.socketPath, repoRoot: daemon.root, timeoutMs: 5000 });
    try {
      const answer = await client.request<{ sessions: SessionInfo[] }>('sessions', {});
      const overIpc = answer.sessions.find((session) => session.id === below.id);
      expect(overIpc).toMatchObject({ agent: 'qwen-code', promptTokens: BELOW, maxContextTokens: QWEN_DEFAULT_WINDOW, percent: 20 });
    } finally {
      await client.close();
    }
    const plain = await daemon.daemon(['status']);
    expect(plain.code).toBe(0);
    const line = plain.stdout.split('\n').find((text) => text.includes(shortId(below.id)));
    expect(line).toContain(' 20% ');
    expect(line).toContain('qwen-code (hands off at 70%, compacts itself at ~85%)');
    expect(line).toContain(QWEN_DEFAULT_MODEL);

    // Another repo's session: never listed, and its folder is not among those the source watches.
    const otherRun = await otherRepoRun;
    expect(otherRun.code, otherRun.stderr).toBe(0);
    const other = (await qwenTranscripts(qwen)).find((file) => file.includes(`${path.sep}${qwenSlugOf(elsewhere)}${path.sep}`));
    expect(other).toBeDefined();
    const source = qwenAgent.createSource({
      root: daemon.root,
      env: daemon.env,
      config: (await loadConfig({ root: daemon.root, env: daemon.env })).agents['qwen-code'],
    });
    const { folders } = await source.folders.list();
    expect(folders).toEqual([path.dirname(below.transcript!)]);
    expect((await qwenSessions()).map((session) => session.transcript)).not.toContain(other);
  });

  it('qwen: sessions crossing handoffAt on the default and on a pinned model get an offline document with the nine sections, committed alone, naming `qwen -i` as the successor; `handoff <prefix>` hands off a third; no transcript changes; `continue --in qwen --print` names the successor, whose prompt given to the real client starts a session the daemon links as continuing the handed-off one', async () => {
    try {
      await waitFor(async () => (await daemon.status()).handoffs.some((entry) => entry.state === 'committed'), {
        timeoutMs: 150_000,
        message: 'the first crossing session handed off and committed',
      });
    } finally {
      releaseSecond();
    }
    const runs = await running;
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const transcripts = (await qwenTranscripts(qwen)).filter((file) => !file.includes(`${path.sep}${qwenSlugOf(elsewhere)}${path.sep}`));
    expect(transcripts).toHaveLength(3);
    const before = new Map(await Promise.all(transcripts.map(async (file) => [file, await sha(file)] as const)));

    const sessions = await waitFor(
      async () => {
        const listed = (await daemon.status()).sessions.filter((session) => session.agent === 'qwen-code' && session.promptTokens !== null);
        return listed.length === 3 ? listed : null;
      },
      { timeoutMs: 60_000, message: 'the three Qwen Code sessions listed' },
    );
    const byTokens = (tokens: number) => sessions.find((session) => session.promptTokens === tokens)!;
    const crossedDefault = byTokens(share(QWEN_DEFAULT_WINDOW, 72));
    const crossedPinned = byTokens(share(PINNED_WINDOW, 72));
    const below = byTokens(BELOW);
    expect(crossedDefault).toMatchObject({ model: QWEN_DEFAULT_MODEL, maxContextTokens: QWEN_DEFAULT_WINDOW, percent: 72 });
    expect(crossedPinned).toMatchObject({ model: PINNED_MODEL, maxContextTokens: PINNED_WINDOW, percent: 72 });

    const committed = await waitFor(
      async () => {
        const handoffs = (await daemon.status()).handoffs.filter((entry) => entry.state === 'committed' && entry.agent === 'qwen-code');
        return handoffs.length === 2 ? handoffs : null;
      },
      { timeoutMs: 90_000, message: 'the two crossing sessions handed off and committed' },
    );
    for (const [session, request] of [
      [crossedDefault, 'add a hello page under docs/'],
      [crossedPinned, 'fix the flag parser'],
    ] as const) {
      const handoff = committed.find((entry) => entry.sessionId === session.id)!;
      expect(handoff).toMatchObject({ executor: 'offline', mode: 'handoff' });
      expect(handoff.path).toMatch(new RegExp(`^\\.ai-zen/handoffs/\\d{8}-\\d{6}-${shortId(session.id)}\\.md$`));
      expect(handoff.successorCommand).toMatch(
        /^qwen -i "Read the handoff document \.ai-zen\/handoffs\/\d{8}-\d{6}-[0-9a-f]{8}\.md \(the previous session's record\)/,
      );
      expect(handoff.successorCommand).not.toMatch(/--resume/);
      expect(handoff.checks).toEqual({ sections: [], facts: [], files: [], commands: [] });
      // Committed alone.
      expect((await daemon.repo.git('show', '--name-only', '--format=', handoff.commit!)).trim()).toBe(handoff.path);
      const doc = await fs.readFile(path.join(daemon.root, handoff.path), 'utf8');
      const at = HANDOFF_SECTIONS.map((heading) => doc.indexOf(`\n## ${heading}`));
      expect(at.every((index) => index >= 0)).toBe(true);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
      expect(section(doc, '💬')).toContain(`> ${request}`);
      const listed = (await daemon.status()).sessions.find((entry) => entry.id === session.id)!;
      expect(listed.successorCommand).toBe(handoff.successorCommand);
    }
    const pageDoc = await fs.readFile(
      path.join(daemon.root, committed.find((entry) => entry.sessionId === crossedDefault.id)!.path),
      'utf8',
    );
    expect(pageDoc).toContain('docs/hello.md');
    expect(pageDoc).toContain('test -f docs/hello.md');
    expect(committed.find((entry) => entry.sessionId === below.id)).toBeUndefined();

    // By hand, by the prefix status prints.
    const prefix = shortId(below.id).slice(0, 6);
    const handedOff = await daemon.daemon(['handoff', prefix]);
    expect(handedOff.stderr).toBe('');
    expect(handedOff.code).toBe(0);
    const [docPath, written, next] = handedOff.stdout.trimEnd().split('\n');
    expect(docPath).toMatch(new RegExp(`^\\.ai-zen/handoffs/\\d{8}-\\d{6}-${shortId(below.id)}\\.md$`));
    expect(written).toBe(`  written by offline for qwen-code session ${shortId(below.id)}`);
    expect(next).toMatch(/^ {2}continue with: qwen -i "Read the handoff document \.ai-zen\/handoffs\/.+\.md /);
    expect(await fs.readFile(path.join(daemon.root, docPath!), 'utf8')).toContain('find where the config is parsed');

    // §4: its successor in Qwen Code, from that document.
    const printed = await daemon.daemon(['continue', shortId(below.id), '--in', 'qwen', '--print']);
    expect(printed.stderr).toBe('');
    expect(printed.code).toBe(0);
    const [client, flag, prompt] = parseShell(printed.stdout.trim()) as string[];
    expect([client, flag]).toEqual(['qwen', '-i']);
    expect(prompt!.startsWith(`Read the handoff document ${docPath!} (the previous session's record)`)).toBe(true);
    // That prompt, given to the real client (one-shot here, on the pinned model: `-i` wants a terminal),
    // starts a fresh session from the document, which the daemon links to the one it continues.
    expect(prompt).toContain('The parser is in src/parse.ts.');
    const successorRun = await runQwen(prompt!, { cwd: daemon.root, home: qwen, baseURL: fake.baseURL, model: PINNED_MODEL });
    expect(successorRun.code, successorRun.stderr).toBe(0);
    const successor = await waitFor(
      async () => (await daemon.status()).sessions.find((session) => session.agent === 'qwen-code' && session.previous?.path === docPath),
      { timeoutMs: 60_000, message: 'the successor session listed as continuing from the document' },
    );
    expect(successor.previous).toEqual({ path: docPath, sessionId: below.id });
    expect(successor.model).toBe(PINNED_MODEL);
    // The one it continues is handed off → it (folded out of the open list; `status --all` shows it).
    const all = (await daemon.daemon(['status', '--all'])).stdout.split('\n');
    expect(all.find((line) => line.includes(`${shortId(below.id)}  `))).toContain(`handed off → ${shortId(successor.id)}`);

    // The transcripts are exactly as Qwen wrote them.
    for (const [file, digest] of before) expect(await sha(file), file).toBe(digest);
  });
});

/** A document's section, from its `## <marker>` heading to the next heading. */
const section = (doc: string, marker: string) => (doc.split(`\n## ${marker}`)[1] ?? '').split('\n## ')[0]!;
const qwenSlugOf = (folder: string) => folder.replace(/[^a-zA-Z0-9]/g, '-');
