// Issue 24 §2 and §4 with the real Qwen Code client (`@qwen-code/qwen-code` 0.24.4) offline against the
// fake OpenAI-compatible server, while a real daemon watches: a session crossing agents.qwen-code.handoffAt
// on Qwen's default model and one on a pinned model are handed over (offline document, committed alone,
// the successor command named), a third is handed off by hand by its id prefix, no transcript is
// written, and `continue --in qwen --print` names the successor. The three runs go at once.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { type FakeOpenAI, type RecordedRequest, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { makeQwenHome, QWEN_DEFAULT_MODEL, QWEN_DEFAULT_WINDOW, type QwenHome, qwenTranscripts, runQwen } from '../support/qwen-client.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const PINNED_MODEL = 'qwen3-max';
const PINNED_WINDOW = 262_144;
const share = (window: number, percent: number) => Math.round((window * percent) / 100);

const sha = async (file: string) =>
  createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');

/** Qwen's own (main) requests, not a side request of the client's. */
const isMain = (request: RecordedRequest) => JSON.stringify(request.messages[0]?.content ?? '').includes('You are Qwen Code');
/** How many replies of this session the request already carries: the step of the scripted turn. */
const stepOf = (request: RecordedRequest) => request.messages.filter((message) => message?.role === 'assistant').length;

describe('issue 24 Qwen Code sessions handed over, with the real client', { timeout: 300_000 }, () => {
  let fake: FakeOpenAI;
  let daemon: DaemonRepo;
  let qwen: QwenHome;
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
        // One crossing at a time: this one once the first document is committed (two handed over at
        // once fail F2 today: the second document's facts name the HEAD before the first one's commit).
        await firstCommitted;
        return reply()
          .text('The flag parser is in src/cli.ts.')
          .usage({ prompt_tokens: share(PINNED_WINDOW, 72), completion_tokens: 20 });
      }
      if (asked.includes('find where the config is parsed'))
        return reply()
          .text('The parser is in src/parse.ts.')
          .usage({ prompt_tokens: share(QWEN_DEFAULT_WINDOW, 20), completion_tokens: 20 });
      return undefined;
    });
  }, 300_000);
  afterAll(async () => {
    await daemon?.cleanup();
    await fake?.close();
  });

  it('issue 24 qwen: sessions crossing handoffAt on the default and on a pinned model get an offline document with the nine sections, committed alone, naming `qwen -i` as the successor; `handoff <prefix>` hands off a third; no transcript changes; `continue --in qwen --print` starts the successor from the document', async () => {
    await daemon.start();
    const options = { cwd: daemon.root, home: qwen, baseURL: fake.baseURL };
    const running = Promise.all([
      runQwen('add a hello page under docs/', options),
      runQwen('fix the flag parser', { ...options, model: PINNED_MODEL }),
      runQwen('find where the config is parsed', options),
    ]);
    try {
      await waitFor(async () => (await daemon.status()).handoffs.some((entry) => entry.state === 'committed'), {
        timeoutMs: 150_000,
        message: 'the first crossing session handed over and committed',
      });
    } finally {
      releaseSecond();
    }
    const runs = await running;
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const transcripts = await qwenTranscripts(qwen);
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
    const below = byTokens(share(QWEN_DEFAULT_WINDOW, 20));
    expect(crossedDefault).toMatchObject({ model: QWEN_DEFAULT_MODEL, maxContextTokens: QWEN_DEFAULT_WINDOW, percent: 72 });
    expect(crossedPinned).toMatchObject({ model: PINNED_MODEL, maxContextTokens: PINNED_WINDOW, percent: 72 });

    const committed = await waitFor(
      async () => {
        const handoffs = (await daemon.status()).handoffs.filter((entry) => entry.state === 'committed' && entry.agent === 'qwen-code');
        return handoffs.length === 2 ? handoffs : null;
      },
      { timeoutMs: 90_000, message: 'the two crossing sessions handed over and committed' },
    );
    for (const [session, request] of [
      [crossedDefault, 'add a hello page under docs/'],
      [crossedPinned, 'fix the flag parser'],
    ] as const) {
      const handoff = committed.find((entry) => entry.sessionId === session.id)!;
      expect(handoff).toMatchObject({ executor: 'offline', mode: 'handoff' });
      expect(handoff.path).toMatch(new RegExp(`^\\.ai-zen/handoffs/\\d{8}-\\d{6}-${shortId(session.id)}\\.md$`));
      expect(handoff.successorCommand).toMatch(/^qwen -i "Read \.ai-zen\/handoffs\/\d{8}-\d{6}-[0-9a-f]{8}\.md \(the handoff document/);
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
    expect(next).toMatch(/^ {2}continue with: qwen -i "Read \.ai-zen\/handoffs\/.+\.md /);
    expect(await fs.readFile(path.join(daemon.root, docPath!), 'utf8')).toContain('find where the config is parsed');

    // §4: its successor in Qwen Code, from that document.
    const printed = await daemon.daemon(['continue', shortId(below.id), '--in', 'qwen', '--print']);
    expect(printed.stderr).toBe('');
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(new RegExp(`^qwen -i 'Read the handoff document ${escapeRegExp(docPath!)} first`));

    // The transcripts are exactly as Qwen wrote them.
    for (const [file, digest] of before) expect(await sha(file), file).toBe(digest);
  });
});

/** A document's section, from its `## <marker>` heading to the next heading. */
const section = (doc: string, marker: string) => (doc.split(`\n## ${marker}`)[1] ?? '').split('\n## ')[0]!;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
