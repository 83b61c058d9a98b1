// The successor in Cline's own terminal: the real Cline CLI (3.0.65, offline against the fake OpenAI
// server) as a person runs it, `cline` at a terminal (tmux), ai-zen's PostToolUse hook installed. At
// the crossing Cline is asked for its own document and writes it; the person types `/clear` and a
// prompt. Cline runs no hook whose answer it hears before the model's first request of a session
// (its TaskStart and UserPromptSubmit run detached), so the fresh session is told of the document at
// its first tool call: the request after it carries the pointer, and status links the two sessions.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../src/events.js';
import { briefNamedIn } from '../support/brief-named.js';
import { authenticateCline, type ClineHome, makeClineHome, startInteractiveCline, stopHub } from '../support/cline-client.js';
import { type FakeOpenAI, type RecordedRequest, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { waitFor } from '../support/wait-for.js';
import { type DaemonRepo, handoffDocs, makeDaemonRepo } from './daemon-harness.js';

/** The ask names the document's path (cline-agent.ts's write instructions). */
const ASKED_PATH = /at exactly this path: (\/\S+\.md)/;
const POINTER = 'ai-zen: Read the handoff document';

const allText = (request: RecordedRequest): string => JSON.stringify(request.messages);

describe('Cline CLI at a terminal: /clear starts the successor of a handed-off session', { timeout: 300_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let fake: FakeOpenAI | undefined;
  let cline: ClineHome | undefined;
  afterEach(async (context) => {
    if (process.env.X3_DEBUG && context.task.result?.state === 'fail' && daemon)
      console.log(await fs.readFile(path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log'), 'utf8').catch(() => 'no log'));
    if (cline) await stopHub(cline);
    await daemon?.cleanup();
    await fake?.close();
    daemon = fake = cline = undefined;
  });

  it('in cline’s terminal the session writes its own document at the crossing; after /clear the fresh session’s first tool call tells it of the document (the next request carries the pointer) and status links the two sessions', async () => {
    const server = await startFakeOpenAI();
    fake = server;
    const repo = await makeDaemonRepo({ config: { agents: { cline: { graceSeconds: 0 } } } });
    daemon = repo;
    const home = await makeClineHome(path.dirname(repo.root));
    cline = home;
    repo.env.CLINE_DIR = home.dir;
    expect((await repo.daemon(['install-hooks', 'cline'])).code).toBe(0);
    await repo.start();
    await authenticateCline(home, repo.root, server.baseURL, 'gpt-4.1');
    const events: AnyEvent[] = [];
    await (await repo.connect()).subscribe((event: AnyEvent) => events.push(event));

    // 100,000 of Cline's 128k is past 70%: the answer to the first tool call asks for the document.
    const request = 'find where the flag parser lives';
    let step: 'working' | 'asked' | 'read' | 'written' | 'fresh' | 'told' = 'working';
    let askedPath = '';
    let freshFirst = '';
    let freshAfterTool = '';
    server.handle((received) => {
      const text = allText(received);
      if (step === 'working') {
        const asked = ASKED_PATH.exec(text)?.[1];
        if (!asked)
          return reply()
            .tool('run_commands', { commands: ['ls'] })
            .usage({ prompt_tokens: 100_000, completion_tokens: 20 });
        step = 'asked';
        askedPath = asked;
        return reply()
          .tool('run_commands', { commands: [`cat '${briefNamedIn(text)}'`] })
          .usage({ prompt_tokens: 103_000, completion_tokens: 20 });
      }
      if (step === 'asked') {
        step = 'read';
        const body = HANDOFF_SECTIONS.map(
          (heading) =>
            `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\nWritten by Cline itself.` : 'The flag parser is not in this repo yet; nothing was changed.'}\n`,
        ).join('\n');
        return reply()
          .tool('run_commands', {
            commands: [`mkdir -p "$(dirname '${askedPath}')" && cat > '${askedPath}' <<'AIZEN_DOC'\n# Handoff\n\n${body}AIZEN_DOC`],
          })
          .usage({ prompt_tokens: 104_000, completion_tokens: 400 });
      }
      if (step === 'read') {
        step = 'written';
        return reply().text('The handoff document is written.').usage({ prompt_tokens: 105_000, completion_tokens: 20 });
      }
      // The fresh session after /clear: its first request, then the one after its first tool call.
      if (step === 'written') {
        step = 'fresh';
        freshFirst = text;
        return reply()
          .tool('run_commands', { commands: ['ls'] })
          .usage({ prompt_tokens: 9_000, completion_tokens: 20 });
      }
      if (step === 'fresh') {
        step = 'told';
        freshAfterTool = text;
        return reply().text('Continuing from the handoff document.').usage({ prompt_tokens: 9_500, completion_tokens: 10 });
      }
      return undefined;
    });
    // Its hook finds the daemon's socket as a person's would.
    await using terminal = await startInteractiveCline({
      cwd: repo.root,
      home,
      env: { AI_ZEN_HOME: repo.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: repo.env.XDG_RUNTIME_DIR! },
    });
    await terminal.type(request);
    await terminal.waitForScreen(/❯ find where the flag parser lives/);
    await terminal.sendKeys('Enter');
    await waitFor(() => events.some((event) => event.name === 'handoff.committed'), {
      timeoutMs: 120_000,
      message: 'the self document committed',
    }).catch(async (error: Error) => {
      throw new Error(`${error.message}; the terminal shows:\n${await terminal.capture()}`);
    });
    const written = events.find((event) => event.name === 'handoff.written')!;
    expect(written.payload).toMatchObject({ agent: 'cline', executor: 'self' });
    const [doc] = await handoffDocs(repo.root);
    await terminal.waitForScreen(/The handoff document is written\./, { timeoutMs: 30_000 });

    await terminal.type('/clear');
    await terminal.waitForScreen(/Start a new session/);
    await terminal.sendKeys('Enter');
    await terminal.waitForScreen(/❯ What can I do for you\?/);
    await terminal.type('go on');
    await terminal.waitForScreen(/❯ go on/);
    await terminal.sendKeys('Enter');
    const screen = await terminal.waitForScreen(/Continuing from the handoff document\./, { timeoutMs: 60_000 });
    expect(screen).not.toMatch(/error/i);
    // Its first request went without the pointer (no hook of Cline's is heard before it); the one after its first tool call carries it.
    expect(freshFirst).not.toContain(POINTER);
    expect(freshFirst).not.toContain('Written by Cline itself.');
    expect(freshAfterTool).toContain(`${POINTER} ${doc} (the previous session's record)`);
    const successor = await waitFor(
      async () => (await repo.status()).sessions.find((entry) => entry.agent === 'cline' && entry.previous?.path === doc) ?? null,
      { timeoutMs: 30_000, message: 'the new session listed as continuing the handed-off one' },
    );
    expect(successor.previous?.sessionId).toBe((written.payload as { sessionId: string }).sessionId);
  });
});
