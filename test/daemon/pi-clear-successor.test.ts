// The successor in pi's own terminal, in one step: the real pi (its default model, against the fake
// Anthropic server) at a terminal (tmux), ai-zen's extension installed in the project. At the
// crossing pi writes its own document; the extension shows the daemon's line on pi's screen, naming
// `/ai-zen-continue`; that command starts a fresh session in the same pi process and sets it to
// work, its first request carrying the breakpoint, and status links the two sessions.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../src/events.js';
import { anthropicReply, type FakeAnthropic, startFakeAnthropic } from '../support/fake-anthropic.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { briefNamedIn } from '../support/brief-named.js';
import { makePiHome, startInteractivePi } from '../support/pi-client.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

describe('pi at a terminal: /ai-zen-continue starts the successor of a handed-off session', { timeout: 300_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let fake: FakeAnthropic | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
    await fake?.close();
    daemon = fake = undefined;
  });

  it('the handoff line on pi’s screen names /ai-zen-continue; that one command starts a fresh session whose first request carries the document, status links the sessions, and in the successor it says there is nothing to continue', async () => {
    const server = await startFakeAnthropic();
    fake = server;
    const repo = await makeDaemonRepo({ config: { agents: { pi: { graceSeconds: 0, handoffAtTokens: 100_000 } } } });
    daemon = repo;
    const pi = await makePiHome(path.dirname(repo.root), { baseURL: server.baseURL });
    repo.env.PI_CODING_AGENT_DIR = pi.agentDir;
    expect((await repo.daemon(['install-hooks', 'pi'])).code).toBe(0);
    await repo.start();
    const events: AnyEvent[] = [];
    await (await repo.connect()).subscribe((event: AnyEvent) => events.push(event));

    const request = 'add a --verbose flag to the CLI';
    server.enqueue(
      anthropicReply().tool('bash', { command: 'ls' }).usage({ input_tokens: 20_000, output_tokens: 20 }),
      anthropicReply().text('The flag parser is in src/cli.ts.').usage({ input_tokens: 120_000, output_tokens: 50 }),
      // The reason names the brief: read first, then the document written where it says.
      (received) =>
        anthropicReply()
          .tool('read', { path: briefNamedIn(received.lastUserText) })
          .usage({ input_tokens: 124_000, output_tokens: 20 }),
      (received) => {
        const docPath = /write tool to exactly this path: (\S+\.md)/.exec(received.allText)?.[1] ?? 'no-path-asked.md';
        const body = HANDOFF_SECTIONS.map(
          (heading) =>
            `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\nWritten by pi itself.` : 'The flag parser is in src/cli.ts; the flag is not wired yet.'}\n`,
        ).join('\n');
        return anthropicReply()
          .tool('write', { path: docPath, content: `# Handoff\n\n${body}` })
          .usage({ input_tokens: 125_000, output_tokens: 400 });
      },
      anthropicReply().text('The handoff document is written.').usage({ input_tokens: 126_000, output_tokens: 20 }),
    );
    await using terminal = await startInteractivePi(request, {
      cwd: repo.root,
      home: pi,
      env: { AI_ZEN_HOME: repo.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: repo.env.XDG_RUNTIME_DIR! },
    });
    await waitFor(() => events.some((event) => event.name === 'handoff.committed'), {
      timeoutMs: 120_000,
      message: 'the self document committed',
    });
    const written = events.find((event) => event.name === 'handoff.written')!;
    expect(written.payload).toMatchObject({ agent: 'pi', executor: 'self' });
    const [doc] = await handoffDocs(repo.root);

    // pi's own screen says it, and the one command that goes on.
    await terminal.waitForScreen(
      new RegExp(`ai-zen: handed off → ${doc!.replace(/\./g, '\\.')} — /ai-zen-continue to continue fresh from it`),
      {
        timeoutMs: 30_000,
      },
    );
    let successorRequest = '';
    server.enqueue((received) => {
      successorRequest = received.allText;
      return anthropicReply().text('Continuing from the handoff document.').usage({ input_tokens: 21_000, output_tokens: 10 });
    });
    await terminal.type('/ai-zen-continue');
    await terminal.waitForScreen(/\/ai-zen-continue/);
    await terminal.sendKeys('Enter');
    await terminal.waitForScreen(/Continuing from the handoff document\./, { timeoutMs: 60_000 });
    expect(successorRequest).toContain(`Read the handoff document ${doc} (the previous session's record)`);
    expect(successorRequest).not.toContain('The flag parser is in src/cli.ts.');
    const successor = await waitFor(
      async () => (await repo.status()).sessions.find((entry) => entry.agent === 'pi' && entry.previous?.path === doc) ?? null,
      { timeoutMs: 30_000, message: 'the new session listed as continuing the handed-off one' },
    );
    expect(successor.previous?.sessionId).toBe((written.payload as { sessionId: string }).sessionId);

    // In the successor, never handed off, the command says so and starts nothing.
    await terminal.type('/ai-zen-continue');
    await terminal.waitForScreen(/\/ai-zen-continue\s*$/m);
    await terminal.sendKeys('Enter');
    await terminal.waitForScreen(/ai-zen: this session was not handed off; there is nothing to continue from/, { timeoutMs: 30_000 });
  });
});
