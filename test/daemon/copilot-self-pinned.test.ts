// For GitHub Copilot CLI on the pinned model (gpt-5.4 over its OpenAI provider; the
// default model's run is in copilot-hooks): at a terminal, past handoffAt, the Stop of the crossing
// turn or of the person's next one has Copilot write the document itself (self), and the daemon
// verifies, adopts and commits it.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copilotPrompt, makeCopilotHome, PINNED_MODEL, startInteractiveCopilot } from '../support/copilot-client.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { briefNamedIn } from '../support/brief-named.js';
import type { TmuxSession } from '../support/tmux.js';
import { waitFor } from '../support/wait-for.js';
import { nextTurn } from './copilot-handoff-turns.js';
import { type DaemonRepo, handoffDocs, makeDaemonRepo } from './daemon-harness.js';

/** The prompt budget Copilot states for gpt-5.4. */
const WINDOW = 922_000;
const tokens = (percent: number) => Math.round((WINDOW * percent) / 100);

describe('Copilot CLI writes its own document on the pinned model', { timeout: 180_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let fake: FakeOpenAI | undefined;
  let terminal: TmuxSession | undefined;
  afterEach(async () => {
    await terminal?.kill();
    await daemon?.cleanup();
    await fake?.close();
  });

  // Copilot 1.0.102 often writes a turn's usage after its agentStop hook: the crossing is then taken at the Stop of the person's next turn.
  it('copilot: at a terminal on gpt-5.4, the Stop of the crossing turn, or else of the next, has Copilot write the document itself (self); the daemon verifies, adopts and commits it', async () => {
    fake = await startFakeOpenAI();
    daemon = await makeDaemonRepo({ config: { agents: { copilot: { graceSeconds: 0 } } } });
    const home = await makeCopilotHome(path.dirname(daemon.root));
    (daemon.env as Record<string, string>).COPILOT_HOME = home.copilotHome;
    expect((await daemon.daemon(['install-hooks', 'copilot'])).code).toBe(0);
    await daemon.start();
    const request = 'rename the config loader';
    let askedWith = '';
    let saidWritten = false;
    let readWith = '';
    // Copilot writes a turn's usage around its agentStop hook in either order: the ask for the
    // document comes at the Stop of the crossing turn or of the next one, and the replies follow it.
    fake.handle((received) => {
      const text = JSON.stringify(received.messages);
      const docPath = /exactly this path \(relative to the repo root\): (\.ai-zen\/handoffs\/[^\s"\\]+\.md)/.exec(text)?.[1];
      // The request after the document's write (its tool's result) ends the handoff turn.
      if (askedWith && !saidWritten && Array.isArray(received.body?.tools) && received.body.tools.length > 0) {
        saidWritten = true;
        return reply()
          .text('The handoff document is written.')
          .usage({ prompt_tokens: tokens(75), completion_tokens: 20 });
      }
      if (!docPath || askedWith) return undefined;
      // The reason names the brief: read first, with the view tool it names (Copilot reads without asking).
      if (!readWith) {
        readWith = (received.body?.tools ?? []).some((tool: { function?: { name?: string } }) => tool.function?.name === 'view')
          ? 'view'
          : 'none offered';
        return reply()
          .tool('view', { path: briefNamedIn(text) })
          .usage({ prompt_tokens: tokens(73), completion_tokens: 20 });
      }
      askedWith = text;
      const body = HANDOFF_SECTIONS.map(
        (heading) =>
          `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\nWritten by Copilot on gpt-5.4.` : 'Renamed in src/config.ts only.'}\n`,
      ).join('\n');
      const command = `mkdir -p "$(dirname '${docPath}')" && cat > '${docPath}' <<'AIZEN_DOC'\n# Handoff\n\n${body}AIZEN_DOC`;
      return reply()
        .tool('bash', { command, description: 'write the handoff document' })
        .usage({ prompt_tokens: tokens(74), completion_tokens: 400 });
    });
    fake.enqueue(
      reply()
        .text('Renamed it in src/config.ts.')
        .usage({ prompt_tokens: tokens(72), completion_tokens: 50 }),
    );
    const provider = { type: 'openai', baseURL: fake.baseURL, model: PINNED_MODEL } as const;
    const env = { AI_ZEN_HOME: daemon.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: daemon.env.XDG_RUNTIME_DIR! };
    terminal = await startInteractiveCopilot(request, { cwd: daemon.root, home, provider, env });
    const taken = await nextTurn(daemon, terminal, /Renamed it in src\/config\.ts\./, 'who calls it', () =>
      fake!.enqueue(
        reply()
          .text('Its callers are in src/cli.ts.')
          .usage({ prompt_tokens: tokens(73), completion_tokens: 60 }),
      ),
    );
    const committed = await waitFor(async () => (await daemon!.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 120_000,
      message: 'the committed handoff',
    });
    expect(askedWith).toContain('--- handoff skill ---');
    expect(readWith).toBe('view');
    expect(committed).toMatchObject({ agent: 'copilot', executor: 'self' });
    expect(await fs.readFile(path.join(daemon.root, committed.path), 'utf8')).toContain('Written by Copilot on gpt-5.4.');
    expect((await daemon.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(committed.path);
    await terminal.waitForScreen(/The handoff document is written\./, { timeoutMs: 30_000 });
    // The person's prompt, typed when the crossing waited for the next turn, is answered in either
    // order: before the handoff turn, or after it when Copilot's own Stop asked first meanwhile.
    if (taken === 'next Stop') await terminal.waitForScreen(/Its callers are in src\/cli\.ts\./, { timeoutMs: 60_000 });
  });

  it('copilot: a `copilot -p` script on gpt-5.4 crossing with the hooks installed keeps its answer, and the daemon writes the document itself (offline)', async () => {
    fake = await startFakeOpenAI();
    daemon = await makeDaemonRepo({ config: { agents: { copilot: { graceSeconds: 0 } } } });
    const home = await makeCopilotHome(path.dirname(daemon.root));
    (daemon.env as Record<string, string>).COPILOT_HOME = home.copilotHome;
    expect((await daemon.daemon(['install-hooks', 'copilot'])).code).toBe(0);
    await daemon.start();
    fake.enqueue(
      reply()
        .text('Counted 3 flags.')
        .usage({ prompt_tokens: tokens(75), completion_tokens: 20 }),
    );
    const provider = { type: 'openai', baseURL: fake.baseURL, model: PINNED_MODEL } as const;
    const env = { AI_ZEN_HOME: daemon.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: daemon.env.XDG_RUNTIME_DIR! };
    const script = await copilotPrompt('count the flags', { cwd: daemon.root, home, provider, env, trustFolder: true });
    expect(script.code).toBe(0);
    expect(script.stdout).toContain('Counted 3 flags.');
    const offline = await waitFor(async () => (await daemon!.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 60_000,
      message: 'the offline document of the script’s session',
    });
    expect(offline.executor).not.toBe('self');
    expect(await handoffDocs(daemon.root)).toHaveLength(1);
    expect(fake.requests.some((received) => JSON.stringify(received.messages).includes('.ai-zen/handoffs/'))).toBe(false);
  });
});
