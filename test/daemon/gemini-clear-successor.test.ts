// The successor in Gemini CLI's own terminal: the real Gemini CLI (`@google/gemini-cli`, its default
// model, against the fake Gemini server) in a tmux pane, ai-zen's hooks installed in the project.
// At the crossing Gemini writes its own document; the AfterAgent hook's answer shows on Gemini's
// screen and names `/clear`; `/clear` starts a fresh session in the same Gemini process, whose first
// prompt carries the breakpoint (BeforeAgent: Gemini drops a SessionStart's context after /clear),
// and status links the two sessions.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../src/events.js';
import { geminiReply, startFakeGemini, type FakeGemini, type RecordedGeminiRequest } from '../support/fake-gemini.js';
import { GEMINI_BIN, geminiEnv, makeGeminiHome } from '../support/gemini-client.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { briefNamedIn } from '../support/brief-named.js';
import { startTmux } from '../support/tmux.js';
import { geminiComposer } from '../support/gemini-composer.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

/** The default model's window. */
const WINDOW = 1_048_576;
const tokens = (percent: number) => Math.ceil((WINDOW * percent) / 100);
const MARK = '[ai-zen handoff]';

describe('Gemini CLI at a terminal: /clear continues a handed-off session', { timeout: 240_000 }, () => {
  let fake: FakeGemini;
  let daemon: DaemonRepo | undefined;

  beforeEach(async () => {
    fake = await startFakeGemini();
  });
  afterEach(async () => {
    await daemon?.cleanup();
    daemon = undefined;
    await fake?.close();
  });

  it('the AfterAgent hook’s line shows on Gemini’s screen naming /clear; /clear and the next prompt carry the document, status links the sessions, and a second /clear carries nothing', async () => {
    daemon = await makeDaemonRepo({ config: { agents: { gemini: { graceSeconds: 0 } } } });
    const repo = daemon;
    const gemini = await makeGeminiHome(path.dirname(repo.root));
    repo.env.GEMINI_CLI_HOME = gemini.home;
    expect((await repo.daemon(['install-hooks', 'gemini'])).code).toBe(0);
    await repo.start();
    const events: AnyEvent[] = [];
    await (await repo.connect()).subscribe((event: AnyEvent) => events.push(event));

    const request = 'add a --verbose flag to the CLI';
    const handoffAsked = (received: RecordedGeminiRequest) => received.lastUserText.includes(MARK);
    let askedWith = '';
    let reason = '';
    fake.handle((received) => {
      if (askedWith) return undefined;
      // The reason names the brief: read first with read_file, then the document written from it.
      if (handoffAsked(received) && !reason) {
        reason = received.lastUserText;
        return geminiReply()
          .call('read_file', { file_path: briefNamedIn(reason) })
          .usage({ prompt: tokens(49), cached: tokens(48) });
      }
      const brief = readFileOutput(received);
      if (!reason || brief === null) return undefined;
      askedWith = `${reason}\n${brief}`;
      const docPath = /exactly this path: (\S+\.md)/.exec(askedWith)![1]!;
      const body = HANDOFF_SECTIONS.map(
        (heading) =>
          `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\nWritten by Gemini itself.` : 'The flag parser is in src/cli.ts; the flag is not wired yet.'}\n`,
      ).join('\n');
      return geminiReply()
        .call('write_file', { file_path: docPath, content: `# Handoff\n\n${body}` })
        .usage({ prompt: tokens(49), cached: tokens(48) });
    });
    fake.enqueue(
      geminiReply()
        .call('run_shell_command', { command: 'ls', description: 'look around' })
        .usage({ prompt: tokens(30) }),
      geminiReply()
        .text('The flag parser is in src/cli.ts.')
        .usage({ prompt: tokens(48) }),
      geminiReply()
        .text('The handoff document is written.')
        .usage({ prompt: tokens(50) }),
    );

    // A person at the terminal: `gemini --yolo -i "<prompt>"`, the hooks finding the daemon as the user's shell would.
    await using terminal = await startTmux({
      command: [GEMINI_BIN, '--yolo', '-i', request],
      cwd: repo.root,
      env: geminiEnv({
        cwd: repo.root,
        home: gemini,
        baseURL: fake.baseURL,
        env: { AI_ZEN_HOME: repo.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: repo.env.XDG_RUNTIME_DIR! },
      }),
      width: 140,
      height: 50,
    });
    await waitFor(() => events.some((event) => event.name === 'handoff.committed'), {
      timeoutMs: 120_000,
      message: 'the self document committed',
    });
    const written = events.find((event) => event.name === 'handoff.written')!;
    expect(written.payload).toMatchObject({ agent: 'gemini', executor: 'self' });
    const [doc] = await handoffDocs(repo.root);

    // Gemini's own screen says it, and how to go on.
    await terminal.waitForScreen(new RegExp(`ai-zen: handed off → ${doc!.replace(/\./g, '\\.')} — /clear to continue fresh from it`), {
      timeoutMs: 30_000,
    });

    const composer = geminiComposer(terminal);
    const asked = (text: string) => {
      const since = fake.requests.length;
      return () => fake.requests.slice(since).some((received) => !received.utility && received.lastUserText.includes(text));
    };
    const prompt = (text: string) => composer.prompt(text, asked(text));
    const clear = (gone: RegExp) => composer.clear(gone);
    const before = fake.requests.length;
    // Each reply goes to the turn of its prompt: a request Gemini makes on its own meanwhile cannot take
    // it. A prompt sent twice (an Enter taken for lost while Gemini redrew) is answered twice, so Gemini
    // is idle again and takes the next /clear.
    const answerPrompt = (text: string, reply: ReturnType<typeof geminiReply>) => {
      let given = false;
      fake.handle((received) => {
        if (!received.lastUserText.includes(text)) return undefined;
        given = true;
        return reply;
      });
      return () => given;
    };
    const continuedAnswered = answerPrompt('go on', geminiReply().text('Continuing from the handoff document.').usage({ prompt: 21_000 }));
    await clear(/The handoff document is written\./);
    await prompt('go on');
    await terminal.waitForScreen(/Continuing from the handoff document\./, { timeoutMs: 60_000 });
    // The daemon links the /clear session to the handed-off one: the hook came from the same Gemini process.
    const successor = await waitFor(
      async () => (await repo.status()).sessions.find((entry) => entry.agent === 'gemini' && entry.previous?.path === doc) ?? null,
      { timeoutMs: 30_000, message: 'the /clear session listed as continuing the handed-off one' },
    );
    expect(successor.previous?.sessionId).toBe((written.payload as { sessionId: string }).sessionId);
    // Gemini CLI 0.61 drops a SessionStart hook's additionalContext after /clear: the breakpoint
    // reaches the model with the first prompt (BeforeAgent), once.
    // The turn's own request, not Gemini's routing one (which may come first and carries the prompt alone).
    const continued = fake.requests.slice(before).find((received) => !received.utility && JSON.stringify(received.body).includes('go on'))!;
    expect(JSON.stringify(continued.body)).toContain(`Read the handoff document ${doc} (the previous session's record)`);

    // A /clear in that successor, which was never handed off, carries no document.
    const later = fake.requests.length;
    const freshAnswered = answerPrompt('an unrelated question', geminiReply().text('A fresh start.').usage({ prompt: 9_000 }));
    await clear(/Continuing from the handoff document\./);
    await prompt('an unrelated question');
    await terminal.waitForScreen(/A fresh start\./, { timeoutMs: 60_000 }).catch((error) => {
      // What Gemini asked meanwhile, to tell a lost prompt from a hook that held it.
      console.log(
        fake.requests
          .slice(later)
          .map((received) => `${received.model} utility=${received.utility}: ${received.lastUserText.slice(0, 200)}`),
      );
      throw error;
    });
    expect(continuedAnswered() && freshAnswered()).toBe(true);
    const fresh = fake.requests
      .slice(later)
      .find((received) => !received.utility && JSON.stringify(received.body).includes('an unrelated question'))!;
    expect(JSON.stringify(fresh.body)).not.toContain('.ai-zen/handoffs/');
  });
});

/** What Gemini's read_file returned in this request (its output text), or null when it holds no read_file result. */
function readFileOutput(received: RecordedGeminiRequest): string | null {
  const read = received.functionResponses.find((response) => response?.name === 'read_file');
  if (!read) return null;
  return typeof read.response?.output === 'string' ? read.response.output : JSON.stringify(read.response);
}
