// The successor in Codex's own terminal: the real Codex TUI (`@openai/codex`, its default model as the
// other Codex tests have it, against the fake Responses server) in a tmux pane, ai-zen's hooks
// installed and trusted. At the crossing Codex writes its own document; the Stop hook's answer shows
// on Codex's screen and names `/clear`; `/clear` starts a fresh session in the same Codex process,
// whose first request carries the breakpoint, and status links the two sessions.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../src/events.js';
import { CODEX_BIN, CODEX_LAUNCHER, type CodexHome, codexEnv, makeCodexHome, stopCodexDaemon } from '../support/codex-client.js';
import { responsesReply, startFakeResponses, type FakeResponses, type RecordedResponsesRequest } from '../support/fake-responses.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { briefNamedIn } from '../support/brief-named.js';
import { startTmux } from '../support/tmux.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

/** The window Codex reports for gpt-5.5 (272k × 95%). */
const WINDOW = 258_400;
const tokens = (percent: number) => Math.round((WINDOW * percent) / 100);
const MARK = '[ai-zen handoff]';

describe('Codex at a terminal: /clear continues a handed-off session', { timeout: 240_000 }, () => {
  let fake: FakeResponses;
  let daemon: DaemonRepo | undefined;
  let codexHome: CodexHome | undefined;

  beforeEach(async () => {
    fake = await startFakeResponses();
  });
  afterEach(async () => {
    if (codexHome) await stopCodexDaemon(codexHome);
    codexHome = undefined;
    await daemon?.cleanup();
    daemon = undefined;
    await fake?.close();
  });

  it('the Stop hook’s line shows on Codex’s screen naming /clear; /clear and the next prompt carry the document, status links the sessions, and a second /clear carries nothing', async () => {
    daemon = await makeDaemonRepo({ env: { AI_ZEN_CODEX_BIN: CODEX_BIN }, config: { agents: { codex: { graceSeconds: 0 } } } });
    const repo = daemon;
    // Codex's first-start questions answered beforehand, as a person answers them once: the folder
    // trusted, its newer model declined (the default model stays), the screen-reader check done.
    const codex = (codexHome = await makeCodexHome(path.dirname(repo.root), {
      baseURL: fake.baseURL,
      extraConfig: [
        // tmux types a word faster than a person: without this Codex takes it for a paste, and Enter for a newline in it.
        'disable_paste_burst = true',
        `[projects.${JSON.stringify(repo.root)}]`,
        'trust_level = "trusted"',
        '[tui]',
        'screen_reader_detection_done = true',
        '[tui.model_availability_nux]',
        '"gpt-6.1-sol" = 1',
        '[notice.model_migrations]',
        '"gpt-5.5" = "gpt-6-sol"',
      ],
    }));
    repo.env.CODEX_HOME = codex.codexHome;
    const trusted = await repo.daemon(['install-hooks', 'codex', '--trust'], { timeoutMs: 60_000 });
    expect(trusted.code, trusted.stderr).toBe(0);
    await repo.start();
    const events: AnyEvent[] = [];
    await (await repo.connect()).subscribe((event: AnyEvent) => events.push(event));

    const request = 'add a --verbose flag to the CLI';
    const handoffAsked = (received: RecordedResponsesRequest) => JSON.stringify(received.input).includes(MARK);
    let askedWith = '';
    let briefRead = false;
    // The TUI asks the model for a title of each new task, beside the conversation.
    const titleAsked = (received: RecordedResponsesRequest) =>
      received.lastUserText.startsWith('Generate a concise, single-line task title');
    fake.handle((received) => {
      if (titleAsked(received)) return responsesReply().text('Verbose flag').usage({ input_tokens: 500, output_tokens: 5 });
      if (!handoffAsked(received) || askedWith) return undefined;
      // The reason names the brief: Codex reads it first, through its shell.
      if (!briefRead) {
        briefRead = true;
        return responsesReply()
          .exec(`cat ${briefNamedIn(JSON.stringify(received.input))}`)
          .usage({ input_tokens: tokens(73), cached_tokens: tokens(72), output_tokens: 20 });
      }
      askedWith = JSON.stringify(received.input);
      const docPath = /exactly this path \(relative to the repo root\): (\.ai-zen\/handoffs\/[^\s"\\]+\.md)/.exec(askedWith)![1]!;
      const body = HANDOFF_SECTIONS.map(
        (heading) =>
          `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\nWritten by Codex itself.` : 'The flag parser is in src/cli.ts; the flag is not wired yet.'}\n`,
      ).join('\n');
      const patch = `*** Begin Patch\n*** Add File: ${docPath}\n${`# Handoff\n\n${body}`
        .split('\n')
        .map((line) => `+${line}`)
        .join('\n')}\n*** End Patch\n`;
      return responsesReply()
        .applyPatch(patch)
        .usage({ input_tokens: tokens(73), cached_tokens: tokens(72), output_tokens: 400 });
    });
    fake.enqueue(
      responsesReply()
        .exec('ls')
        .usage({ input_tokens: tokens(30), output_tokens: 20 }),
      responsesReply()
        .text('The flag parser is in src/cli.ts.')
        .usage({ input_tokens: tokens(72), output_tokens: 50 }),
      responsesReply()
        .text('The handoff document is written.')
        .usage({ input_tokens: tokens(74), cached_tokens: tokens(73), output_tokens: 20 }),
    );

    // A person at the terminal: `codex "<prompt>"`, the hooks finding the daemon as the user's shell would.
    await using terminal = await startTmux({
      command: [process.execPath, CODEX_LAUNCHER, request],
      cwd: repo.root,
      env: codexEnv(codex, { AI_ZEN_HOME: repo.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: repo.env.XDG_RUNTIME_DIR! }),
      width: 140,
      height: 50,
    });
    await terminal.waitForScreen(/The handoff document is written\./, { timeoutMs: 90_000 });
    await waitFor(() => events.some((event) => event.name === 'handoff.committed'), {
      timeoutMs: 60_000,
      message: 'the self document committed',
    });
    const written = events.find((event) => event.name === 'handoff.written')!;
    expect(written.payload).toMatchObject({ agent: 'codex', executor: 'self' });
    const [doc] = await handoffDocs(repo.root);

    // Codex's own screen says it, and how to go on.
    await terminal.waitForScreen(new RegExp(`ai-zen: handed off → ${doc!.replace(/\./g, '\\.')} — /clear to continue fresh from it`), {
      timeoutMs: 30_000,
    });

    // `/clear` and the person's next prompt: the fresh session of the same Codex process is the successor.
    const clear = async (gone: RegExp) => {
      // Codex refuses `/clear` while a turn is in progress; the turn has ended once it says how long it worked.
      await terminal.waitForScreen(new RegExp(`${gone.source}[\\s\\S]*Worked for`), { timeoutMs: 30_000 });
      await terminal.type('/clear');
      await terminal.sendKeys('Enter');
      await waitFor(async () => !gone.test(await terminal.capture()), { timeoutMs: 30_000, message: '/clear to start a fresh session' });
    };
    const before = fake.requests.length;
    fake.enqueue(responsesReply().text('Continuing from the handoff document.').usage({ input_tokens: 21_000, output_tokens: 10 }));
    await clear(/The handoff document is written\./);
    await terminal.type('go on');
    await terminal.sendKeys('Enter');
    await terminal.waitForScreen(/Continuing from the handoff document\./, { timeoutMs: 60_000 });
    const continued = fake.requests
      .slice(before)
      .filter((received) => !titleAsked(received))
      .at(-1)!;
    expect(JSON.stringify(continued.input)).toContain(`Read the handoff document ${doc} (the previous session's record)`);
    const successor = await waitFor(
      async () => (await repo.status()).sessions.find((entry) => entry.agent === 'codex' && entry.previous?.path === doc) ?? null,
      { timeoutMs: 30_000, message: 'the /clear session listed as continuing the handed-off one' },
    );
    expect(successor.previous?.sessionId).toBe((written.payload as { sessionId: string }).sessionId);

    // A /clear in that successor, which was never handed off, carries no document.
    const later = fake.requests.length;
    fake.enqueue(responsesReply().text('A fresh start.').usage({ input_tokens: 9_000, output_tokens: 10 }));
    await clear(/Continuing from the handoff document\./);
    await terminal.type('something else');
    await terminal.sendKeys('Enter');
    await terminal.waitForScreen(/A fresh start\./, { timeoutMs: 60_000 });
    expect(
      JSON.stringify(
        fake.requests
          .slice(later)
          .filter((received) => !titleAsked(received))
          .at(-1)!.input,
      ),
    ).not.toContain('.ai-zen/handoffs/');
  });
});
