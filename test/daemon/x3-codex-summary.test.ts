// X3 §3–4 for a real Codex CLI session (`@openai/codex` against the fake Responses server, in a temp
// repo and CODEX_HOME) while a real daemon watches: with a model configured (the fake OpenAI server
// in the user config) the crossing is handed to the summary executor, the rollout's history
// serialised to fit that model's window; and `agents.codex.warnAt` warns once before the handoff.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/agent/estimate-tokens.js';
import type { AnyEvent } from '../../src/events.js';
import { codexExec, listRollouts, makeCodexHome, runCodex, type CodexHome } from '../support/codex-client.js';
import { startDbusSession, type DbusSession, type NotificationService } from '../support/dbus-session.js';
import { contentText, reply, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { responsesReply, startFakeResponses, type FakeResponses } from '../support/fake-responses.js';
import { waitFor } from '../support/wait-for.js';
import { shortId } from '../../src/short-id.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';

/** The window Codex reports for gpt-5.5 (272k × 95%). */
const WINDOW = 258_400;
const tokens = (percent: number) => Math.round((WINDOW * percent) / 100);
const SECTIONS = HANDOFF_SECTIONS;
/** The summary model's window: far smaller than the Codex session's history. */
const SUMMARY_WINDOW = 6_000;

describe('X3 a Codex session handed off by the summary executor, and warned before', { timeout: 120_000 }, () => {
  let fake: FakeResponses;
  let model: FakeOpenAI;
  let bus: DbusSession;
  let notifications: NotificationService;
  let daemon: DaemonRepo | undefined;
  let codex: CodexHome;
  let events: AnyEvent[];

  beforeEach(async () => {
    fake = await startFakeResponses();
    model = await startFakeOpenAI();
    bus = await startDbusSession();
    notifications = await bus.startNotificationService();
  });
  afterEach(async () => {
    await daemon?.cleanup();
    daemon = undefined;
    await bus?.stop();
    await fake?.close();
    await model?.close();
  });

  async function setUp(options: { summaryModel: boolean }): Promise<DaemonRepo> {
    daemon = await makeDaemonRepo({ env: { ...bus.env }, config: { agents: { codex: { graceSeconds: 0 } } } });
    codex = await makeCodexHome(path.dirname(daemon.root), { baseURL: fake.baseURL });
    (daemon.env as Record<string, string>).CODEX_HOME = codex.codexHome;
    if (options.summaryModel)
      // The user's config (no trust needed, T4) names the model.
      await fs.writeFile(
        path.join(daemon.repo.home, 'config.json'),
        JSON.stringify({ baseURL: model.baseURL, apiKey: 'sk-test', model: 'summary-model', maxContextTokens: SUMMARY_WINDOW }),
      );
    await daemon.start();
    const client = await daemon.connect();
    events = [];
    await client.subscribe((event: AnyEvent) => events.push(event));
    return daemon;
  }

  const codexAt = (repo: DaemonRepo, percent: number) =>
    waitFor(
      async () => (await repo.status()).sessions.find((session) => session.agent === 'codex' && session.percent === percent) ?? null,
      { timeoutMs: 30_000, message: `the Codex session listed at ${percent}%` },
    );
  const resume = (repo: DaemonRepo, prompt: string) =>
    runCodex(['exec', '--skip-git-repo-check', 'resume', '--last', prompt], { cwd: repo.root, home: codex });

  it('X3 a Codex session crossing handoffAt with a model configured: one summary request, its history serialised to fit the model’s window and holding the last request; the committed document is the summary’s, checked F1–F4', async () => {
    const repo = await setUp({ summaryModel: true });
    const summary = `# Handoff\n\n${SECTIONS.map((heading) => `## ${heading}\n\nFrom the summary model: the user asked for a hello page; \`docs/hello.md\` exists and the README is next. Background the page must respect: keep it short.\n`).join('\n')}`;
    model.handle(() => reply().text(summary).usage({ prompt_tokens: 4_000, completion_tokens: 300 }));

    // A first turn far longer than the summary model's window: a long request, a file written by apply_patch.
    const longRequest = `write a hello page under docs/. ${'Background the page must respect: keep it short. '.repeat(800)}`;
    fake.enqueue(
      responsesReply()
        .applyPatch('*** Begin Patch\n*** Add File: docs/hello.md\n+# Hello\n*** End Patch\n')
        .usage({ input_tokens: tokens(30), output_tokens: 50 }),
      responsesReply()
        .text('Added docs/hello.md.')
        .usage({ input_tokens: tokens(31), cached_tokens: tokens(30), output_tokens: 20 }),
    );
    expect((await codexExec(longRequest, { cwd: repo.root, home: codex })).code).toBe(0);
    const session = await codexAt(repo, 31);
    expect(model.requests).toHaveLength(0);
    const [rollout] = await listRollouts(codex);
    const before = await fs.readFile(rollout!, 'utf8');

    fake.enqueue(
      responsesReply()
        .text('Linking it from the README next.')
        .usage({ input_tokens: tokens(72), cached_tokens: tokens(31), output_tokens: 30 }),
    );
    expect((await resume(repo, 'now link the page from the README')).code).toBe(0);

    const written = await waitFor(() => events.find((event) => event.name === 'handoff.written'), {
      timeoutMs: 60_000,
      message: 'the handoff.written event',
    });
    expect(written.payload).toMatchObject({ agent: 'codex', executor: 'summary', sessionId: session.id });
    expect(model.requests).toHaveLength(1);
    const request = model.requests[0]!;
    expect(request.body.model).toBe('summary-model');
    const sent = request.messages.map((message) => contentText(message.content)).join('\n');
    // Serialised to fit: the whole request within the model's window, the last request kept whole.
    expect(estimateTokens(sent)).toBeLessThanOrEqual(SUMMARY_WINDOW);
    expect(sent).toContain('now link the page from the README');
    expect(estimateTokens(longRequest)).toBeGreaterThan(SUMMARY_WINDOW);

    const committed = await waitFor(async () => (await repo.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 60_000,
      message: 'the committed handoff',
    });
    expect(committed).toMatchObject({ agent: 'codex', executor: 'summary' });
    expect(committed.downgrades).toBeUndefined();
    expect(await fs.readFile(path.join(repo.root, committed.path), 'utf8')).toContain('From the summary model');
    expect(execFileSync('git', ['log', '--format=%s', '-1'], { cwd: repo.root, encoding: 'utf8' })).toContain('(summary)');
    const listed = await repo.daemon(['handoffs']);
    expect(listed.stdout).toContain(`${committed.path}  summary`);
    expect(listed.stdout).toContain('checked ✓');
    expect(listed.stdout).toContain(`continue with: ${committed.successorCommand}`);
    expect(committed.successorCommand).toMatch(/^codex "Read the handoff document /);
    // The rollout is only ever read: what Codex wrote is still there, only appended to (by Codex).
    expect((await fs.readFile(rollout!, 'utf8')).startsWith(before)).toBe(true);
    expect(await listRollouts(codex)).toEqual([rollout]);
  });

  it('X3 a Codex session crossing agents.codex.warnAt (60%): one warning naming Codex and where the daemon hands it off, one session.warned; then the handoff at 70%', async () => {
    const repo = await setUp({ summaryModel: false });
    fake.enqueue(
      responsesReply()
        .text('Reading.')
        .usage({ input_tokens: tokens(40), output_tokens: 10 }),
    );
    expect((await codexExec('add a --verbose flag', { cwd: repo.root, home: codex })).code).toBe(0);
    const session = await codexAt(repo, 40);

    fake.enqueue(
      responsesReply()
        .text('Parser found.')
        .usage({ input_tokens: tokens(61), cached_tokens: tokens(40), output_tokens: 10 }),
    );
    expect((await resume(repo, 'keep going')).code).toBe(0);
    await codexAt(repo, 61);
    fake.enqueue(
      responsesReply()
        .text('Still above.')
        .usage({ input_tokens: tokens(63), cached_tokens: tokens(61), output_tokens: 10 }),
    );
    expect((await resume(repo, 'and the help text')).code).toBe(0);
    await codexAt(repo, 63);
    fake.enqueue(
      responsesReply()
        .text('Wired.')
        .usage({ input_tokens: tokens(72), cached_tokens: tokens(63), output_tokens: 10 }),
    );
    expect((await resume(repo, 'and the README')).code).toBe(0);

    // Notifications go out in event order: once the handoff's is there, every warning has been sent.
    const calls = await waitFor(
      async () => {
        const received = await notifications.received();
        return received.some((call) => call.summary === 'ai-zen: Codex handoff written') ? received : null;
      },
      { timeoutMs: 60_000, message: 'the handoff notification' },
    );
    const beforeHandoff = calls.slice(
      0,
      calls.findIndex((call) => call.summary === 'ai-zen: Codex handoff written'),
    );
    expect(beforeHandoff.map((call) => call.summary)).toEqual([`Codex session ${shortId(session.id)} at 61%`]);
    expect(beforeHandoff[0]!.body).toContain('warning at 60% — the daemon hands it off at 70%');
    const warned = events.filter((event) => event.name === 'session.warned');
    expect(warned.map((event) => event.payload)).toEqual([
      expect.objectContaining({ sessionId: session.id, agent: 'codex', percent: 61, warnAt: 60, handoffAt: 70, maxContextTokens: WINDOW }),
    ]);
    expect(await handoffDocs(repo.root)).toHaveLength(1);
  });
});
