// The successor in Qwen Code's own terminal: the real Qwen Code (`qwen -i`, its default model, against
// the fake OpenAI-compatible server) in a tmux pane, ai-zen's hooks installed in the project. At the
// crossing Qwen writes its own document; the Stop hook's answer shows on Qwen's screen and names
// `/clear`; `/clear` starts a fresh session in the same Qwen process, whose first request carries the
// breakpoint, and status links the two sessions.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../src/events.js';
import { type FakeOpenAI, type RecordedRequest, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { briefNamedIn } from '../support/brief-named.js';
import { makeQwenHome, QWEN_DEFAULT_WINDOW, startInteractiveQwen } from '../support/qwen-client.js';
import { geminiComposer } from '../support/gemini-composer.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const MARK = '[ai-zen handoff]';
const share = (percent: number) => Math.round((QWEN_DEFAULT_WINDOW * percent) / 100);
const isMain = (request: RecordedRequest) => JSON.stringify(request.messages[0]?.content ?? '').includes('You are Qwen Code');
const stepOf = (request: RecordedRequest) => request.messages.filter((message) => message?.role === 'assistant').length;

describe('Qwen Code at a terminal: /clear continues a handed-off session', { timeout: 300_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let fake: FakeOpenAI | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
    await fake?.close();
    daemon = fake = undefined;
  });

  it('the Stop hook’s line shows on Qwen’s screen naming /clear; /clear and the next prompt carry the document, status links the sessions, and a second /clear carries nothing', async () => {
    const server = await startFakeOpenAI();
    fake = server;
    const repo = await makeDaemonRepo({ config: { agents: { 'qwen-code': { graceSeconds: 0 } } } });
    daemon = repo;
    const qwen = await makeQwenHome(path.dirname(repo.root));
    Object.assign(repo.env, qwen.env);
    expect((await repo.daemon(['install-hooks', 'qwen'])).code).toBe(0);
    await repo.start();
    const events: AnyEvent[] = [];
    await (await repo.connect()).subscribe((event: AnyEvent) => events.push(event));
    const hookEnv = { AI_ZEN_HOME: repo.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: repo.env.XDG_RUNTIME_DIR! };

    const request = 'add a --verbose flag to the CLI';
    let askedWith = '';
    let briefRequested = false;
    server.handle((received) => {
      if (!isMain(received)) return reply().text('ok').usage({ prompt_tokens: 10, completion_tokens: 1 });
      const all = JSON.stringify(received.messages);
      // After /clear: the person's next prompts.
      const last = JSON.stringify(received.messages.filter((message) => message?.role === 'user').at(-1)?.content ?? '');
      if (last.includes('carry on please'))
        return reply().text('Continuing from the handoff document.').usage({ prompt_tokens: 21_000, completion_tokens: 10 });
      if (last.includes('an unrelated question'))
        return reply().text('A fresh start.').usage({ prompt_tokens: 9_000, completion_tokens: 10 });
      if (all.includes(MARK) && !briefRequested) {
        // The Stop hook's reason names the brief: the model reads it first with read_file.
        briefRequested = true;
        return reply()
          .tool('read_file', { file_path: briefNamedIn(all.replace(/\\n/g, '\n')) })
          .usage({ prompt_tokens: share(73), completion_tokens: 20 });
      }
      if (all.includes(MARK) && !askedWith) {
        askedWith = all;
        const target = /write the handoff document with your write_file tool to exactly this path: (\S+?\.md)/.exec(
          all.replace(/\\n/g, '\n'),
        )![1]!;
        const body = HANDOFF_SECTIONS.map(
          (heading) =>
            `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\nWritten by Qwen itself.` : 'The flag parser is in src/cli.ts; the flag is not wired yet.'}\n`,
        ).join('\n');
        return reply()
          .tool('write_file', { file_path: target, content: `# Handoff\n\n${body}` })
          .usage({ prompt_tokens: share(73), completion_tokens: 400 });
      }
      if (askedWith)
        return reply()
          .text('The handoff document is written.')
          .usage({ prompt_tokens: share(74), completion_tokens: 10 });
      if (stepOf(received) === 0)
        return reply()
          .tool('run_shell_command', { command: 'ls', description: 'look' })
          .usage({ prompt_tokens: share(30), completion_tokens: 20 });
      return reply()
        .text('The flag parser is in src/cli.ts.')
        .usage({ prompt_tokens: share(72), completion_tokens: 20 });
    });

    await using terminal = await startInteractiveQwen(request, { cwd: repo.root, home: qwen, baseURL: server.baseURL, env: hookEnv });
    await waitFor(() => events.some((event) => event.name === 'handoff.committed'), {
      timeoutMs: 150_000,
      message: 'the self document committed',
    });
    const written = events.find((event) => event.name === 'handoff.written')!;
    expect(written.payload).toMatchObject({ agent: 'qwen-code', executor: 'self' });
    const [doc] = await handoffDocs(repo.root);

    // Qwen's own screen says it, and how to go on.
    await terminal.waitForScreen(new RegExp(`ai-zen: handed off → ${doc!.replace(/\./g, '\\.')} — /clear to continue fresh from it`), {
      timeoutMs: 30_000,
    });

    const composer = geminiComposer(terminal);
    const asked = (text: string) => {
      const since = server.requests.length;
      return () => server.requests.slice(since).some((received) => isMain(received) && JSON.stringify(received.messages).includes(text));
    };
    const prompt = (text: string) => composer.prompt(text, asked(text));
    const clear = (gone: RegExp) => composer.clear(gone);
    const before = server.requests.length;
    await clear(/The handoff document is written\./);
    await prompt('carry on please');
    await terminal.waitForScreen(/Continuing from the handoff document\./, { timeoutMs: 60_000 });
    const continued = server.requests.slice(before).filter(isMain).at(-1)!;
    const successor = await waitFor(
      async () => (await repo.status()).sessions.find((entry) => entry.agent === 'qwen-code' && entry.previous?.path === doc) ?? null,
      { timeoutMs: 30_000, message: 'the /clear session listed as continuing the handed-off one' },
    );
    expect(successor.previous?.sessionId).toBe((written.payload as { sessionId: string }).sessionId);
    expect(JSON.stringify(continued.messages)).toContain(`Read the handoff document ${doc} (the previous session's record)`);

    // A /clear in that successor, which was never handed off, carries no document.
    const after = server.requests.length;
    await clear(/Continuing from the handoff document\./);
    await prompt('an unrelated question');
    await terminal.waitForScreen(/A fresh start\./, { timeoutMs: 60_000 });
    expect(JSON.stringify(server.requests.slice(after).filter(isMain).at(-1)!.messages)).not.toContain('.ai-zen/handoffs/');
  });
});
