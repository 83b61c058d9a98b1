// X3 with the real Codex CLI (`@openai/codex`, its native binary) driven offline against the fake
// Responses server, in a temp repo and a temp CODEX_HOME, while a real daemon watches: the rollouts
// it reads are the ones the client itself wrote.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexExec, listRollouts, makeCodexHome, runCodex, type CodexHome } from '../support/codex-client.js';
import { startDbusSession, type DbusSession, type NotificationService } from '../support/dbus-session.js';
import { responsesReply, startFakeResponses, type FakeResponses } from '../support/fake-responses.js';
import { waitFor } from '../support/wait-for.js';
import { shortId } from '../../src/short-id.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

/** The window Codex reports for gpt-5.5 (272k × 95%). */
const WINDOW = 258_400;
const tokens = (percent: number) => Math.round((WINDOW * percent) / 100);

describe('X3 Codex CLI sessions, with the real client', { timeout: 90_000 }, () => {
  let fake: FakeResponses;
  let daemon: DaemonRepo;
  let codex: CodexHome;
  let bus: DbusSession;
  let notifications: NotificationService;

  beforeEach(async () => {
    fake = await startFakeResponses();
    bus = await startDbusSession();
    notifications = await bus.startNotificationService();
  });
  afterEach(async (context) => {
    if (process.env.X3_DEBUG && context.task.result?.state === 'fail') {
      console.log(JSON.stringify(await daemon.status().catch(() => null), null, 1));
      console.log(await fs.readFile(path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log'), 'utf8').catch(() => 'no log'));
    }
    await daemon?.cleanup();
    await bus?.stop();
    await fake?.close();
  });

  /** No grace window after a session starts: these sessions are seconds old. */
  const noGrace = { codex: { graceSeconds: 0 } };

  async function setUp(agents: object = {}): Promise<void> {
    daemon = await makeDaemonRepo({ env: { ...bus.env }, config: { agents: { ...noGrace, ...agents } } });
    codex = await makeCodexHome(path.dirname(daemon.root), { baseURL: fake.baseURL });
    // The daemon and the client share the CODEX_HOME (the harness gives the daemon an empty one).
    (daemon.env as Record<string, string>).CODEX_HOME = codex.codexHome;
  }

  const codexSession = async (id?: string) => {
    const sessions = (await daemon.status()).sessions.filter((session) => session.agent === 'codex');
    return id ? sessions.find((session) => session.id === id) : sessions[0];
  };
  /** The session once the daemon has read a reading at `percent`. */
  const codexSessionAt = (percent: number) =>
    waitFor(
      async () => {
        const session = await codexSession();
        return session?.percent === percent ? session : null;
      },
      { timeoutMs: 30_000, message: `the Codex session listed at ${percent}%` },
    );

  it('X3 a Codex session under its threshold is listed (live while it runs) with the percent Codex itself counts (cached input and output included), and nothing is handed off; another repo’s session is not listed', async () => {
    await setUp();
    await daemon.start();
    // Another repo's session in the same day folder: never listed.
    const elsewhere = path.join(path.dirname(daemon.root), 'elsewhere');
    await fs.mkdir(elsewhere);
    fake.enqueue(
      responsesReply()
        .text('other repo')
        .usage({ input_tokens: tokens(80), output_tokens: 10 }),
    );
    expect((await codexExec('work elsewhere', { cwd: elsewhere, home: codex })).code).toBe(0);

    // 40% of the window: 100k input of which 90k cached, plus 3,360 output. The reply waits until the
    // test has seen the session live (the client holds its thread lock meanwhile), whatever the load.
    let release!: () => void;
    const replyGate = new Promise<void>((resolve) => (release = resolve));
    fake.enqueue(
      responsesReply().text('Looked at it.').until(replyGate).usage({ input_tokens: 100_000, cached_tokens: 90_000, output_tokens: 3_360 }),
    );
    const running = codexExec('look at the README', { cwd: daemon.root, home: codex });
    try {
      await waitFor(async () => (await codexSession())?.owner === 'live', {
        timeoutMs: 60_000,
        message: 'the running Codex session shown live',
      });
    } finally {
      release();
    }
    expect((await running).code).toBe(0);
    const session = await codexSessionAt(40);
    expect(session.owner).toBe('none');
    expect(session).toMatchObject({
      agent: 'codex',
      percent: 40,
      promptTokens: 103_360,
      maxContextTokens: WINDOW,
      handoffAt: 70,
      compactsAt: 95,
      overflowed: false,
    });
    expect(session.transcript).toMatch(/\/sessions\/\d{4}\/\d{2}\/\d{2}\/rollout-.+\.jsonl$/);
    expect((await daemon.status()).sessions.filter((listed) => listed.agent === 'codex')).toHaveLength(1);
    expect(await handoffDocs(daemon.root)).toEqual([]);
    expect(await notifications.received()).toEqual([]);
  });

  it('X3 a Codex session crossing handoffAt is handed off: a committed document whose 💬 holds the user’s last request, a notification, and a fresh `codex` to continue', async () => {
    await setUp();
    await daemon.start();
    fake.enqueue(
      responsesReply()
        .text('Reading the code first.')
        .usage({ input_tokens: tokens(30), output_tokens: 100 }),
    );
    expect((await codexExec('add a --verbose flag to the CLI', { cwd: daemon.root, home: codex })).code).toBe(0);
    const first = await codexSessionAt(30);

    // The next turn, resumed in the same rollout, crosses 70%.
    fake.enqueue(
      responsesReply()
        .text('The flag parser is in src/cli.ts; wiring it next.')
        .usage({ input_tokens: tokens(72), cached_tokens: tokens(60), output_tokens: 50 }),
    );
    const [rollout] = await listRollouts(codex);
    const resumed = await runCodex(['exec', '--skip-git-repo-check', 'resume', '--last', 'and document it in the README'], {
      cwd: daemon.root,
      home: codex,
    });
    expect(resumed.code).toBe(0);
    expect(await listRollouts(codex)).toEqual([rollout]);

    const handoff = await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 45_000,
      message: 'the committed handoff',
    });
    expect(handoff.agent).toBe('codex');
    expect(handoff.path).toMatch(new RegExp(`^\\.ai-zen/handoffs/\\d{8}-\\d{6}-${shortId(first.id)}\\.md$`));
    const doc = await fs.readFile(path.join(daemon.root, handoff.path), 'utf8');
    expect(section(doc, '💬')).toContain('> and document it in the README');
    expect(handoff.successorCommand).toMatch(
      /^codex "Read the handoff document \.ai-zen\/handoffs\/.+\.md \(the previous session's record\)/,
    );
    expect(handoff.successorCommand).not.toMatch(/resume/);
    // Committed alone.
    expect((await daemon.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(handoff.path);

    const session = (await codexSession(first.id))!;
    expect(session.successorCommand).toBe(handoff.successorCommand);
    const calls = await waitFor(
      async () => {
        const received = await notifications.received();
        return received.some((call) => call.body.includes(handoff.successorCommand!)) ? received : null;
      },
      { timeoutMs: 30_000, message: 'a notification naming the successor command' },
    );
    expect(calls.map((call) => call.body).join('\n')).toContain(shortId(first.id));

    // The successor command works: a fresh Codex session (a new rollout) that starts from the document alone.
    const prompt = /^codex "((?:[^"\\]|\\.)*)"$/.exec(handoff.successorCommand!)![1]!.replace(/\\(["$`\\])/g, '$1');
    fake.enqueue(responsesReply().text('Reading the handoff document.').usage({ input_tokens: 12_000, output_tokens: 10 }));
    expect((await codexExec(prompt, { cwd: daemon.root, home: codex })).code).toBe(0);
    const successor = fake.requests.at(-1)!;
    expect(successor.lastUserText).toContain(handoff.path);
    expect(JSON.stringify(successor.input)).not.toContain('add a --verbose flag');
    expect(await listRollouts(codex)).toHaveLength(2);
  });

  it('X3 a multi-turn Codex session with tool calls: its files (apply_patch) and commands with their exit status are in the offline document', async () => {
    await setUp();
    await daemon.start();
    const patch = '*** Begin Patch\n*** Add File: docs/hello.md\n+# Hello\n*** End Patch\n';
    fake.enqueue(
      responsesReply()
        .text('Looking around.')
        .exec('ls -la')
        .usage({ input_tokens: tokens(20), output_tokens: 50 }),
      responsesReply()
        .applyPatch(patch)
        .usage({ input_tokens: tokens(25), cached_tokens: tokens(20), output_tokens: 50 }),
      responsesReply()
        .text('Added docs/hello.md.')
        .usage({ input_tokens: tokens(26), cached_tokens: tokens(25), output_tokens: 20 }),
    );
    expect((await codexExec('write a hello page under docs/', { cwd: daemon.root, home: codex })).code).toBe(0);
    await codexSessionAt(26);
    fake.enqueue(
      responsesReply()
        .exec('test -f docs/missing.md')
        .usage({ input_tokens: tokens(50), cached_tokens: tokens(26), output_tokens: 30 }),
      responsesReply()
        .text('The page is there; the missing one is not.')
        .usage({ input_tokens: tokens(71), cached_tokens: tokens(50), output_tokens: 20 }),
    );
    expect(
      (
        await runCodex(['exec', '--skip-git-repo-check', 'resume', '--last', 'check that the page exists'], {
          cwd: daemon.root,
          home: codex,
        })
      ).code,
    ).toBe(0);

    const handoff = await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 45_000,
      message: 'the committed handoff',
    });
    const doc = await fs.readFile(path.join(daemon.root, handoff.path), 'utf8');
    expect(doc).toContain('docs/hello.md');
    expect(doc).toMatch(/`ls -la` — exit 0/);
    expect(doc).toMatch(/`test -f docs\/missing\.md` — exit 1/);
    expect(section(doc, '💬')).toContain('> check that the page exists');
    expect((await daemon.status()).handoffs).toHaveLength(1);
  });

  it('X3 a Codex session already above handoffAt when the daemon starts hands off only once it grew 10 more points, and once for that crossing; one born while the daemon runs and starting above is handed off at once', async () => {
    await setUp();
    fake.enqueue(
      responsesReply()
        .text('Picked up a big task.')
        .usage({ input_tokens: tokens(75), output_tokens: 10 }),
    );
    // The session exists before the daemon starts.
    expect((await codexExec('continue the migration', { cwd: daemon.root, home: codex })).code).toBe(0);
    await daemon.start();
    const first = await waitFor(
      async () => {
        const session = await codexSession();
        return session?.percent === 75 && session.action?.includes('hands off once it reaches 85%') ? session : null;
      },
      { timeoutMs: 30_000, message: 'the session first seen at 75%, waiting for 85%' },
    );
    const resume = (prompt: string, percent: number) => {
      fake.enqueue(
        responsesReply()
          .text(`Step at ${percent}%.`)
          .usage({ input_tokens: tokens(percent), output_tokens: 10 }),
      );
      return runCodex(['exec', '--skip-git-repo-check', 'resume', '--last', prompt], { cwd: daemon.root, home: codex });
    };
    expect((await resume('next table', 80)).code).toBe(0);
    await codexSessionAt(80);
    expect((await codexSession())!.action).toContain('hands off once it reaches 85%');
    expect(await handoffDocs(daemon.root)).toEqual([]);
    expect((await resume('the last table', 86)).code).toBe(0);
    const handoff = await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 45_000,
      message: 'the committed handoff at 86%',
    });
    expect(handoff.path).toContain(shortId(first.id));
    // Still above: the same crossing, no second document.
    expect((await resume('and the indexes', 88)).code).toBe(0);
    await codexSessionAt(88);
    expect((await daemon.status()).handoffs).toHaveLength(1);
    expect(await handoffDocs(daemon.root)).toHaveLength(1);
    // A new session, born while the daemon runs, whose first reading is already at 75%: no waiting.
    fake.enqueue(
      responsesReply()
        .text('Read the whole schema.')
        .usage({ input_tokens: tokens(75), output_tokens: 10 }),
    );
    expect((await codexExec('read the schema', { cwd: daemon.root, home: codex })).code).toBe(0);
    await waitFor(async () => (await daemon.status()).handoffs.filter((entry) => entry.state === 'committed').length === 2, {
      timeoutMs: 45_000,
      message: 'the new session handed off at 75%',
    });
  });

  it('X3 a young Codex session over handoffAt waits out its grace window, but goes at once when a later reading passes 95%', async () => {
    // The default grace window (two minutes).
    await setUp({ codex: {} });
    await daemon.start();
    fake.handle((request) =>
      request.lastUserText.includes('CONTEXT CHECKPOINT COMPACTION')
        ? responsesReply().text('Summary.').usage({ input_tokens: 9_000, output_tokens: 10 })
        : undefined,
    );
    fake.enqueue(
      responsesReply()
        .text('Started.')
        .usage({ input_tokens: tokens(30), output_tokens: 10 }),
      responsesReply()
        .text('Halfway.')
        .usage({ input_tokens: tokens(72), output_tokens: 10 }),
    );
    expect((await codexExec('port the parser', { cwd: daemon.root, home: codex })).code).toBe(0);
    await codexSessionAt(30);
    expect(
      (await runCodex(['exec', '--skip-git-repo-check', 'resume', '--last', 'and the tokens'], { cwd: daemon.root, home: codex })).code,
    ).toBe(0);
    await waitFor(async () => (await codexSession())?.action?.includes('started less than two minutes ago') ?? false, {
      timeoutMs: 30_000,
      message: 'the crossing held back by the grace window',
    });
    expect(await handoffDocs(daemon.root)).toEqual([]);
    fake.enqueue(
      responsesReply()
        .text('Nearly full.')
        .usage({ input_tokens: tokens(96), output_tokens: 10 }),
    );
    expect(
      (await runCodex(['exec', '--skip-git-repo-check', 'resume', '--last', 'and the lexer'], { cwd: daemon.root, home: codex })).code,
    ).toBe(0);
    const handoff = await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 45_000,
      message: 'the handoff at 96%, inside the grace window',
    });
    expect(handoff.agent).toBe('codex');
  });

  it('X3 Codex compacting its own history (provoked past its limit) is recorded: in status and as a session.compacted event', async () => {
    // handoffAt 100: the daemon stays out of the way, so Codex's own compaction is what happens.
    await setUp({ codex: { graceSeconds: 0, handoffAt: 100 } });
    await daemon.start();
    const client = await daemon.connect();
    const compacted: unknown[] = [];
    await client.subscribe((event) => {
      if (event.name === 'session.compacted') compacted.push(event.payload);
    });
    let turn = 0;
    fake.handle((request) => {
      turn += 1;
      // 1: over Codex's limit (90% of 272k) after a tool call; 2: the compaction's summary; 3: the turn goes on.
      if (turn === 1)
        return responsesReply().exec('echo working').usage({ input_tokens: 246_000, cached_tokens: 200_000, output_tokens: 500 });
      if (request.lastUserText.includes('CONTEXT CHECKPOINT COMPACTION'))
        return responsesReply().text('Summary: working on the flag.').usage({ input_tokens: 246_500, output_tokens: 40 });
      return responsesReply().text('Carrying on after the summary.').usage({ input_tokens: 9_000, output_tokens: 30 });
    });
    const run = await codexExec('keep working on the flag', { cwd: daemon.root, home: codex });
    expect(run.code).toBe(0);
    expect(run.stderr + run.stdout).toMatch(/context compacted/);
    const session = await waitFor(
      async () => {
        const listed = await codexSession();
        return listed && listed.compactions === 1 && listed.percent === 3 ? listed : null;
      },
      { timeoutMs: 30_000, message: 'the compaction in status' },
    );
    expect(session.lastCompactionAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    await waitFor(() => compacted.length === 1, { timeoutMs: 10_000, message: 'the session.compacted event' });
    expect(compacted[0]).toMatchObject({ agent: 'codex', sessionId: session.id });
    // Before compacting, the client wrote the same reading twice in a row: one compaction, one reading's worth of news.
    const [rollout] = await listRollouts(codex);
    const readings = (await fs.readFile(rollout!, 'utf8')).split('\n').filter((text) => text.includes('"type":"token_count"'));
    const distinct = readings.filter((text, index) => index === 0 || lastUsage(text) !== lastUsage(readings[index - 1]!));
    expect(readings.length).toBeGreaterThan(distinct.length);
    expect(await handoffDocs(daemon.root)).toEqual([]);
  });

  it('X3 fixtures: a resume appending to an older day’s rollout is read, and a new day’s folder appearing at midnight is watched', async () => {
    await setUp();
    const fixture = (day: string, n: number, cwd: string, ...lines: object[]) => {
      const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
      const file = path.join(codex.sessions, day, `rollout-2026-01-01T00-00-00-${id}.jsonl`);
      const meta = {
        timestamp: '2026-11-20T09:00:00.000Z',
        type: 'session_meta',
        payload: { id, cwd, base_instructions: { text: 'x'.repeat(20_000) } },
      };
      const write = async () => {
        await fs.mkdir(path.dirname(file), { recursive: true });
        await fs.writeFile(file, [meta, ...lines].map((line) => `${JSON.stringify(line)}\n`).join(''));
      };
      return { id, file, write };
    };
    const reading = (percent: number) => ({
      timestamp: '2026-11-20T09:01:00.000Z',
      type: 'event_msg',
      payload: {
        type: 'token_count',
        info: {
          last_token_usage: {
            input_tokens: tokens(percent),
            cached_input_tokens: 0,
            output_tokens: 0,
            reasoning_output_tokens: 0,
            total_tokens: tokens(percent),
          },
          model_context_window: WINDOW,
        },
      },
    });
    const old = fixture('2026/11/20', 1, daemon.root, reading(20));
    await old.write();
    for (let n = 10; n < 40; n += 1) await fixture(`2026/11/${String(n - 9).padStart(2, '0')}`, n, `/elsewhere/${n}`, reading(50)).write();
    await daemon.start();
    await codexSessionAt(20);
    // `codex exec resume` appends to the old day's file.
    await fs.appendFile(old.file, `${JSON.stringify(reading(45))}\n`);
    await codexSessionAt(45);
    // Midnight: a new month's first day, with a new session of this repo (in a subfolder) in it.
    const fresh = fixture('2026/12/01', 2, path.join(daemon.root, 'sub'), reading(12));
    await fresh.write();
    await waitFor(async () => (await codexSession(fresh.id))?.percent === 12, {
      timeoutMs: 30_000,
      message: 'the session in the new day folder',
    });
    const listed = (await daemon.status()).sessions.filter((session) => session.agent === 'codex');
    expect(listed.map((session) => session.id).sort()).toEqual([old.id, fresh.id]);
  });
});

/** A document's section, from its `## <marker>` heading to the next heading. */
const section = (doc: string, marker: string) => (doc.split(`\n## ${marker}`)[1] ?? '').split('\n## ')[0]!;
const lastUsage = (text: string) => JSON.stringify(JSON.parse(text).payload.info?.last_token_usage ?? null);
