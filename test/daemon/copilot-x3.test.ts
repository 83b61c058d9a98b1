// X3 with the real GitHub Copilot CLI (`@github/copilot`, its native binary) driven
// offline against the suite's fake servers, in a temp repo and a temp HOME / COPILOT_HOME, while a
// real daemon watches: the transcripts it reads are the ones the client itself wrote. Once on the
// client's default model (Claude Sonnet 4.5, over its Anthropic provider) and once on a pinned one
// (gpt-5.4, over its OpenAI provider).
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionsReply } from '../../src/daemon/side-channels/status-schema.js';
import { shortId } from '../../src/short-id.js';
import {
  type CopilotHome,
  type CopilotProvider,
  copilotPrompt,
  DEFAULT_MODEL,
  listCopilotTranscripts,
  makeCopilotHome,
  PINNED_MODEL,
} from '../support/copilot-client.js';
import { anthropicReply, type FakeAnthropic, startFakeAnthropic } from '../support/fake-anthropic.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { waitFor } from '../support/wait-for.js';
import { type DaemonRepo, handoffDocs, makeDaemonRepo } from './daemon-harness.js';

/** One model call's reported usage, as each provider spells it: `context` = what Copilot counts (input, cached input, output). */
interface Turn {
  readonly text: string;
  readonly context: number;
  readonly output: number;
  readonly gate?: Promise<unknown>;
}

interface Model {
  readonly name: string;
  /** The prompt budget the client states for the model (maxPromptTokens, 1.0.102). */
  readonly window: number;
  /** Also the parts that do not depend on the model (another repo's session, a handoff by hand): on one model only, to keep the file cheap. */
  readonly all: boolean;
  start(): Promise<{ provider: CopilotProvider; enqueue(turn: Turn): void; lastUserTexts(): string[]; close(): Promise<void> }>;
}

const anthropicModel: Model = {
  name: DEFAULT_MODEL,
  window: 168_000,
  all: true,
  async start() {
    const fake: FakeAnthropic = await startFakeAnthropic();
    return {
      provider: { type: 'anthropic', baseURL: fake.baseURL, model: DEFAULT_MODEL },
      enqueue: (turn) => {
        // A tenth of the input from the prompt cache: Copilot counts it as input (inputTokens).
        const cached = Math.floor((turn.context - turn.output) / 10);
        const built = anthropicReply()
          .text(turn.text)
          .usage({ input_tokens: turn.context - turn.output - cached, cache_read_input_tokens: cached, output_tokens: turn.output });
        fake.enqueue(turn.gate ? built.until(turn.gate) : built);
      },
      lastUserTexts: () => fake.requests.filter((request) => request.main).map((request) => request.lastUserText),
      close: () => fake.close(),
    };
  },
};

const openaiModel: Model = {
  name: PINNED_MODEL,
  window: 922_000,
  all: false,
  async start() {
    const fake: FakeOpenAI = await startFakeOpenAI();
    return {
      provider: { type: 'openai', baseURL: fake.baseURL, model: PINNED_MODEL },
      enqueue: (turn) => {
        // The gate holds the reply before its first word.
        const built = turn.gate ? reply().hold(turn.gate) : reply();
        fake.enqueue(built.text(turn.text).usage({ prompt_tokens: turn.context - turn.output, completion_tokens: turn.output }));
      },
      lastUserTexts: () => fake.requests.map((request) => request.lastUserText),
      close: () => fake.close(),
    };
  },
};

const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');
/** A document's section, from its `## <marker>` heading to the next heading. */
const section = (doc: string, marker: string) => (doc.split(`\n## ${marker}`)[1] ?? '').split('\n## ')[0]!;

describe.each([anthropicModel, openaiModel])('X3 GitHub Copilot CLI on $name, with the real client', { timeout: 240_000 }, (model) => {
  let daemon: DaemonRepo | undefined;
  let closeFake: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
    await closeFake?.();
  });

  it('copilot: watched (only this repo’s session, live while it runs, measured as Copilot counts it, its own window); handed off at handoffAt with a committed nine-section document, the successor command and the transcript unchanged; `handoff <id-prefix>` works', async () => {
    const fake = await model.start();
    closeFake = fake.close;
    daemon = await makeDaemonRepo({ config: { agents: { copilot: { graceSeconds: 0 } } } });
    const home: CopilotHome = await makeCopilotHome(path.dirname(daemon.root));
    // The daemon and the client share the COPILOT_HOME.
    (daemon.env as Record<string, string>).COPILOT_HOME = home.copilotHome;
    await daemon.start();
    const tokens = (percent: number) => Math.round((model.window * percent) / 100);
    const run = (prompt: string, cwd: string, resume?: string) =>
      copilotPrompt(prompt, { cwd, home, provider: fake.provider, ...(resume ? { resume } : {}) });
    const copilotSessions = async () => (await daemon!.status()).sessions.filter((session) => session.agent === 'copilot');

    // Another repo's session (a repo of its own beside this one): never listed.
    if (model.all) {
      const elsewhere = path.join(path.dirname(daemon.root), 'elsewhere');
      await fs.mkdir(elsewhere);
      await daemon.repo.git('init', '-q', elsewhere);
      fake.enqueue({ text: 'other repo', context: tokens(80), output: 10 });
      expect((await run('work elsewhere', elsewhere)).code).toBe(0);
    }

    // 40% of the window, the reply held until the test has seen the session live.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    fake.enqueue({ text: 'Looked at the README.', context: tokens(40), output: 321, gate });
    const running = run('look at the README', daemon.root);
    try {
      await waitFor(async () => (await copilotSessions())[0]?.owner === 'live', {
        timeoutMs: 90_000,
        message: 'the running session shown live',
      });
    } finally {
      release();
    }
    expect((await running).code).toBe(0);
    const session = await waitFor(
      async () => {
        const [listed] = await copilotSessions();
        return listed?.percent === 40 && listed.owner === 'none' ? listed : null;
      },
      { timeoutMs: 30_000, message: 'the session at 40%, ended' },
    );
    expect(session).toMatchObject({
      agent: 'copilot',
      model: model.name,
      promptTokens: tokens(40),
      maxContextTokens: model.window,
      handoffAt: 70,
      compactsAt: 95,
      overflowed: false,
    });
    const [transcript] = (await listCopilotTranscripts(home)).filter((file) => file.includes(session.id));
    expect(session.transcript).toBe(transcript);
    expect(await copilotSessions()).toHaveLength(1);
    const overIpc = SessionsReply.parse(JSON.parse((await daemon.daemon(['sessions', '--json'])).stdout)).sessions;
    expect(overIpc.filter((listed) => listed.agent === 'copilot').map((listed) => [listed.id, listed.promptTokens])).toEqual([
      [session.id, tokens(40)],
    ]);
    const text = (await daemon.daemon(['status'])).stdout;
    expect(text).toContain(shortId(session.id));
    expect(await handoffDocs(daemon.root)).toEqual([]);

    // The next turn of the same session crosses 70%: the daemon writes and commits the document.
    fake.enqueue({ text: 'The flag parser is in src/cli.ts; wiring it next.', context: tokens(72), output: 50 });
    expect((await run('add a --verbose flag and document it', daemon.root, session.id)).code).toBe(0);
    const before = await sha256(transcript!);
    const handoff = await waitFor(async () => (await daemon!.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 60_000,
      message: 'the committed handoff',
    });
    expect(handoff.agent).toBe('copilot');
    expect(handoff.path).toMatch(new RegExp(`^\\.ai-zen/handoffs/\\d{8}-\\d{6}-${shortId(session.id)}\\.md$`));
    const doc = await fs.readFile(path.join(daemon.root, handoff.path), 'utf8');
    for (const heading of HANDOFF_SECTIONS) expect(doc).toContain(`## ${heading}`);
    expect(section(doc, '💬')).toContain('add a --verbose flag and document it');
    expect((await daemon.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(handoff.path);
    expect(handoff.successorCommand).toMatch(
      /^copilot -i "Read the handoff document \.ai-zen\/handoffs\/.+\.md \(the previous session's record\)/,
    );
    expect((await copilotSessions())[0]!.successorCommand).toBe(handoff.successorCommand);

    if (model.all) {
      // By hand, by the id's first characters.
      const byHand = await daemon.daemon(['handoff', session.id.slice(0, 6)], { timeoutMs: 60_000 });
      expect(byHand.stderr).toBe('');
      expect(byHand.code).toBe(0);
      await waitFor(async () => (await daemon!.status()).handoffs.filter((entry) => entry.state === 'committed').length === 2, {
        timeoutMs: 60_000,
        message: 'the handoff by hand committed',
      });
    }
    // The transcript is only ever read.
    expect(await sha256(transcript!)).toBe(before);
    // The other repo's session was never listed, and the successor's prompt is this session's last request.
    expect(fake.lastUserTexts().at(-1)).toContain('add a --verbose flag');
  });
});
