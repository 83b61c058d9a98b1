// The successor in Copilot CLI's own terminal: the real Copilot CLI (its default model, against the
// fake Anthropic server) in a tmux pane, ai-zen's hooks installed in the project. At the Stop of the
// crossing turn, or of the person's next one, Copilot writes its own document; `/clear` starts a fresh session in the same Copilot process, whose
// first request carries the breakpoint, and status links the two sessions.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../src/events.js';
import { DEFAULT_MODEL, makeCopilotHome, startInteractiveCopilot } from '../support/copilot-client.js';
import { anthropicReply, type FakeAnthropic, startFakeAnthropic } from '../support/fake-anthropic.js';
import type { TmuxSession } from '../support/tmux.js';
import { waitFor } from '../support/wait-for.js';
import { copilotHandoffModel, nextTurn } from './copilot-handoff-turns.js';
import { type DaemonRepo, handoffDocs, makeDaemonRepo } from './daemon-harness.js';

/** The prompt budget Copilot states for its default model. */
const WINDOW = 168_000;
const tokens = (percent: number) => Math.round((WINDOW * percent) / 100);

describe('Copilot CLI at a terminal: /clear continues a handed-off session', { timeout: 240_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let fake: FakeAnthropic | undefined;
  let terminal: TmuxSession | undefined;
  afterEach(async () => {
    await terminal?.kill();
    await daemon?.cleanup();
    await fake?.close();
  });

  // Copilot 1.0.102 often writes a turn's usage after its agentStop hook: the crossing is then taken at the Stop of the person's next turn.
  it('/clear and the next prompt carry the document to the fresh session of the same Copilot process, and status links the sessions', async () => {
    fake = await startFakeAnthropic();
    const server = fake;
    daemon = await makeDaemonRepo({ config: { agents: { copilot: { graceSeconds: 0 } } } });
    const repo = daemon;
    const home = await makeCopilotHome(path.dirname(repo.root));
    (repo.env as Record<string, string>).COPILOT_HOME = home.copilotHome;
    expect((await repo.daemon(['install-hooks', 'copilot'])).code).toBe(0);
    await repo.start();
    const events: AnyEvent[] = [];
    await (await repo.connect()).subscribe((event: AnyEvent) => events.push(event));
    const provider = { type: 'anthropic', baseURL: server.baseURL, model: DEFAULT_MODEL } as const;
    const env = { AI_ZEN_HOME: repo.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: repo.env.XDG_RUNTIME_DIR! };
    const request = 'add a --verbose flag to the CLI';
    const model = copilotHandoffModel(request, tokens);
    server.enqueue(...model.replies);
    terminal = await startInteractiveCopilot(request, { cwd: repo.root, home, provider, env });
    const screen = terminal;
    await nextTurn(repo, screen, /The flag parser is in src\/cli\.ts\./, 'where does the flag go', () => server.enqueue(model.another));
    await waitFor(() => events.some((event) => event.name === 'handoff.committed'), {
      timeoutMs: 120_000,
      message: 'the self document committed',
    });
    const written = events.find((event) => event.name === 'handoff.written')!;
    expect(written.payload).toMatchObject({ agent: 'copilot', executor: 'self' });
    const [doc] = await handoffDocs(repo.root);

    await screen.waitForScreen(/The handoff document is written\./, { timeoutMs: 30_000 });
    // Copilot CLI 1.0.102 does not show a Stop hook's systemMessage: the line naming /clear is not on its screen.

    const prompt = async (text: string) => {
      await screen.type(text);
      await screen.waitForScreen(new RegExp(`❯ ${text}`));
      await screen.sendKeys('Enter');
    };
    const clear = async (gone: RegExp) => {
      await prompt('/clear');
      await waitFor(async () => !gone.test(await screen.capture()), { timeoutMs: 30_000, message: '/clear to start a fresh session' });
    };
    const before = server.requests.length;
    server.enqueue(anthropicReply().text('Continuing from the handoff document.').usage({ input_tokens: 21_000, output_tokens: 10 }));
    await clear(/The handoff document is written\./);
    await prompt('carry on please');
    await screen.waitForScreen(/Continuing from the handoff document\./, { timeoutMs: 60_000 });
    const continued = server.requests
      .slice(before)
      .filter((received) => received.main)
      .at(-1)!;
    const successor = await waitFor(
      async () => (await repo.status()).sessions.find((entry) => entry.agent === 'copilot' && entry.previous?.path === doc) ?? null,
      { timeoutMs: 30_000, message: 'the /clear session listed as continuing the handed-off one' },
    );
    expect(successor.previous?.sessionId).toBe((written.payload as { sessionId: string }).sessionId);
    expect(continued.allText).toContain(`Read the handoff document ${doc} (the previous session's record)`);

    // A /clear in that successor, which was never handed off, carries no document. Copilot CLI 1.0.102
    // says `source: "new"` for a start and a /clear alike: the daemon knows it by the same Copilot process starting again.
    const later = server.requests.length;
    server.enqueue(anthropicReply().text('A fresh start.').usage({ input_tokens: 9_000, output_tokens: 10 }));
    await clear(/Continuing from the handoff document\./);
    await prompt('something else');
    await screen.waitForScreen(/A fresh start\./, { timeoutMs: 60_000 });
    const fresh = server.requests
      .slice(later)
      .filter((received) => received.main)
      .at(-1)!;
    expect(fresh.allText).not.toContain('.ai-zen/handoffs/');
  });
});
