// The successor in opencode's own terminal: the real opencode (1.18.33, offline against the fake
// OpenAI server) as a person runs it, its TUI at a terminal (tmux), ai-zen's plugin installed in the
// project. At the crossing opencode is asked for its own document and writes it; the person types
// `/new` and a prompt in the same TUI, and that fresh session's first request carries the pointer to
// the document, and status links the two sessions.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../src/events.js';
import { briefNamedIn } from '../support/brief-named.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { answerTitles, makeOpencodeHome, startInteractiveOpencode } from '../support/opencode-client.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const MARK = '[ai-zen handoff]';

describe('opencode at a terminal: /new starts the successor of a handed-off session', { timeout: 300_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let fake: FakeOpenAI | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
    await fake?.close();
    daemon = fake = undefined;
  });

  it('in opencode’s TUI the session writes its own document at the crossing; after /new the first prompt’s request carries the pointer to it and status links the two sessions', async () => {
    const server = await startFakeOpenAI();
    fake = server;
    answerTitles(server);
    const repo = await makeDaemonRepo({ config: { agents: { opencode: { graceSeconds: 0 } } } });
    daemon = repo;
    const opencode = await makeOpencodeHome(path.dirname(repo.root), { baseURL: server.baseURL, context: 100_000 });
    repo.env.XDG_DATA_HOME = opencode.dataHome;
    repo.env.XDG_CONFIG_HOME = opencode.configHome;
    expect((await repo.daemon(['install-hooks', 'opencode'])).code).toBe(0);
    await repo.start();
    const events: AnyEvent[] = [];
    await (await repo.connect()).subscribe((event: AnyEvent) => events.push(event));

    const request = 'add a --verbose flag to the CLI';
    server.enqueue(
      reply().tool('bash', { command: 'ls', description: 'list' }).usage({ prompt_tokens: 20_000, completion_tokens: 20 }),
      reply().text('The flag parser is in src/cli.ts.').usage({ prompt_tokens: 80_000, completion_tokens: 50 }),
    );
    // The Stop hook's reason comes as the next prompt: opencode reads the brief it names, then writes the document.
    server.handle((received) => {
      const last = received.lastUserText;
      if (!last.includes(MARK) || JSON.stringify(received.messages.at(-1)).includes('tool_call_id')) return undefined;
      return reply()
        .tool('read', { filePath: briefNamedIn(last) })
        .usage({ prompt_tokens: 84_000, completion_tokens: 20 });
    });
    server.handle((received) => {
      const text = JSON.stringify(received.messages);
      if (!text.includes(MARK) || received.messages.at(-1)?.role !== 'tool') return undefined;
      if (text.includes('Written by opencode itself'))
        return reply().text('The handoff document is written.').usage({ prompt_tokens: 86_000, completion_tokens: 20 });
      const docPath = /write tool to exactly this path: (\S+?\.md)/.exec(received.lastUserText)?.[1] ?? 'no-path-asked.md';
      const body = HANDOFF_SECTIONS.map(
        (heading) =>
          `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\nWritten by opencode itself.` : 'The flag parser is in src/cli.ts; the flag is not wired yet.'}\n`,
      ).join('\n');
      return reply()
        .tool('write', { filePath: docPath, content: `# Handoff\n\n${body}` })
        .usage({ prompt_tokens: 85_000, completion_tokens: 400 });
    });
    await using terminal = await startInteractiveOpencode({
      cwd: repo.root,
      home: opencode,
      env: { AI_ZEN_HOME: repo.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: repo.env.XDG_RUNTIME_DIR! },
    });
    await terminal.type(request);
    await terminal.waitForScreen(/add a --verbose flag to the CLI/);
    await terminal.sendKeys('Enter');
    await waitFor(() => events.some((event) => event.name === 'handoff.committed'), {
      timeoutMs: 120_000,
      message: 'the self document committed',
    }).catch(async (error: Error) => {
      throw new Error(`${error.message}; the terminal shows:\n${await terminal.capture()}`);
    });
    const written = events.find((event) => event.name === 'handoff.written')!;
    expect(written.payload).toMatchObject({ agent: 'opencode', executor: 'self' });
    const [doc] = await handoffDocs(repo.root);
    // The person saw the ask go in and the model's word that the document is written.
    await terminal.waitForScreen(/The handoff document is written\./, { timeoutMs: 30_000 });
    // The plugin shows the daemon's line on opencode's screen (a toast): the document and the way on.
    const toast = await terminal.waitForScreen(/\/new to continue fresh from it/, { timeoutMs: 30_000 });
    expect(toast).toContain('ai-zen: handed off → .ai-zen/handoffs/');

    const before = server.requests.length;
    server.enqueue(reply().text('Continuing from the handoff document.').usage({ prompt_tokens: 9_000, completion_tokens: 10 }));
    await terminal.type('/new');
    await terminal.waitForScreen(/New session/);
    await terminal.sendKeys('Enter');
    await terminal.waitForScreen(/Ask anything/);
    await terminal.type('go on');
    await terminal.waitForScreen(/┃\s+go on/);
    await terminal.sendKeys('Enter');
    const screen = await terminal.waitForScreen(/Continuing from the handoff document\./, { timeoutMs: 60_000 });
    expect(screen).not.toMatch(/error/i);
    // The person sees the pointer (the line's start: the handoff toast, up for a minute, may still cover
    // the rest of it): under their prompt when the prompt came before the session's start was answered,
    // above it as the session's first message when the start was answered first (a loaded machine).
    expect(screen).toContain('ai-zen: Read the handoff docu');
    const successorRequest = JSON.stringify(
      server.requests.slice(before).find((received) => !JSON.stringify(received.messages[0]).includes('title generator'))?.messages,
    );
    expect(successorRequest).toContain(`ai-zen: Read the handoff document ${doc} (the previous session's record)`);
    expect(successorRequest).not.toContain('The flag parser is in src/cli.ts.');
    const successor = await waitFor(
      async () => (await repo.status()).sessions.find((entry) => entry.agent === 'opencode' && entry.previous?.path === doc) ?? null,
      { timeoutMs: 30_000, message: 'the new session listed as continuing the handed-off one' },
    );
    expect(successor.previous?.sessionId).toBe((written.payload as { sessionId: string }).sessionId);
  });
});
