// The person comes back to a Claude Code session the daemon handed off while it sat idle: the real
// client at a terminal (tmux), ai-zen's hooks installed, a real daemon, the fake Anthropic server
// (Claude Code's default model, claude-opus-5-5, a 1-hour cache). The next prompt shows the choice
// once per idle stretch and still goes to the model; a script's prompt (`claude -p`) is never told.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { SessionInfo } from '../../src/daemon/side-channels/status-schema.js';
import { claudeTranscripts, makeClaudeHome, runClaude, type ClaudeHome } from '../support/claude-client.js';
import { startInteractiveClaude } from '../support/claude-interactive.js';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic, type RecordedAnthropicRequest } from '../support/fake-anthropic.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const ONE_HOUR = { ENABLE_PROMPT_CACHING_1H: '1' };
/** What the API reports for a reply that wrote the whole prompt to the cache. */
const written = (tokens: number) => ({ input_tokens: 10, cache_creation_input_tokens: tokens - 10, output_tokens: 30 });
/** The choice as the screen shows it (Claude Code wraps it: whitespace runs are read as one space). */
const CHOICE =
  /UserPromptSubmit says: ai-zen: handed off while idle → (\.ai-zen\/handoffs\/\S+\.md); \/clear continues fresh \(~(\d+)k tokens\); resuming this session re-writes ~40k tokens \(~\$0\.32\)/;
const flat = (screen: string) => screen.replace(/\s+/g, ' ');
const sha = async (file: string) =>
  createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');

let daemon: DaemonRepo | undefined;
let fake: FakeAnthropic | undefined;
let base: string | undefined;
afterEach(async () => {
  await daemon?.cleanup();
  await fake?.close();
  if (base) await fs.rm(base, { recursive: true, force: true });
  daemon = fake = base = undefined;
});

async function setup(): Promise<{ daemon: DaemonRepo; fake: FakeAnthropic; claude: ClaudeHome }> {
  fake = await startFakeAnthropic();
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-idle-return-'));
  const claude = await makeClaudeHome(base);
  // 12 seconds idle: long enough that a reply the test answers at once starts a stretch not yet handed off.
  daemon = await makeDaemonRepo({
    env: { ...claude.env },
    config: { agents: { 'claude-code': { idleHandoff: { enabled: true, minTokens: 15_000, afterMinutes: 0.2 } } } },
  });
  await daemon.start();
  const installed = await daemon.daemon(['install-hooks', 'claude']);
  expect(installed.code, installed.stderr).toBe(0);
  return { daemon, fake, claude };
}

async function handedOff(repo: DaemonRepo, transcript: string): Promise<SessionInfo> {
  return waitFor(
    async () => (await repo.status()).sessions.find((session) => session.transcript === transcript && session.idle?.state === 'handed-off'),
    { timeoutMs: 60_000, message: `${path.basename(transcript)} handed off while idle` },
  );
}

const onlyTranscript = async (claude: ClaudeHome) =>
  waitFor(async () => (await claudeTranscripts(claude))[0], { message: 'the Claude Code transcript' });

describe('the person back at a session handed off while idle', { timeout: 240_000 }, () => {
  test('at the terminal: the next prompt shows the choice and goes on, the prompt after it nothing; the transcript is only read', async () => {
    const { daemon, fake, claude } = await setup();
    // The session's first request is its fresh start's size (18k); it grew to 40k.
    fake.enqueue(
      anthropicReply().tool('Bash', { command: 'true' }).usage(written(18_000)),
      anthropicReply().text('The parser is in src/parse.ts.').usage(written(40_000)),
    );
    await using terminal = await startInteractiveClaude('Add the parser', {
      cwd: daemon.root,
      home: claude,
      baseURL: fake.baseURL,
      args: ['--allowedTools', 'Bash'],
      env: { ...daemon.env, ...ONE_HOUR },
    });
    await terminal.waitForScreen(/The parser is in src\/parse\.ts\./, { timeoutMs: 60_000 });
    const transcript = await onlyTranscript(claude);
    const session = await handedOff(daemon, transcript);
    const before = await fs.readFile(transcript, 'utf8');
    expect(await sha(transcript)).toBe(createHash('sha256').update(before).digest('hex'));

    // Back from lunch: the prompt is kept, and the model hears that the choice was shown.
    let asked: RecordedAnthropicRequest | undefined;
    fake.enqueue((request) => {
      asked = request;
      return anthropicReply().text('The lexer is in src/lex.ts.').usage(written(41_000));
    });
    await terminal.type('Now add the lexer');
    await terminal.sendKeys('Enter');
    const screen = flat(await terminal.waitForScreen(/The lexer is in src\/lex\.ts\./, { timeoutMs: 60_000 }));
    expect(screen).toMatch(CHOICE);
    const [, document, fresh] = CHOICE.exec(screen)!;
    expect(document).toBe(session.idle!.document);
    // The first request's 18k and the document's few hundred tokens.
    expect(Number(fresh)).toBeGreaterThanOrEqual(18);
    expect(Number(fresh)).toBeLessThan(25);
    expect(asked?.lastUserText).toContain('Now add the lexer');
    expect(asked?.allText).toContain('while the user was away this session was handed off while idle');

    // The same person's next prompt, before the new stretch is handed off: nothing more.
    fake.enqueue(anthropicReply().text('The tests pass.').usage(written(42_000)));
    await terminal.type('Run the tests');
    await terminal.sendKeys('Enter');
    const after = flat(await terminal.waitForScreen(/The tests pass\./, { timeoutMs: 60_000 }));
    expect(after.match(new RegExp(CHOICE.source, 'g'))).toHaveLength(1);
    // Only the client wrote on: what the transcript held when it was handed off is still its start.
    expect((await fs.readFile(transcript, 'utf8')).startsWith(before)).toBe(true);
  });

  test('a daemon restart in the same idle stretch does not show the choice again', async () => {
    const { daemon, fake, claude } = await setup();
    fake.enqueue(anthropicReply().text('The parser is in src/parse.ts.').usage(written(40_000)));
    await using terminal = await startInteractiveClaude('Add the parser', {
      cwd: daemon.root,
      home: claude,
      baseURL: fake.baseURL,
      env: { ...daemon.env, ...ONE_HOUR },
    });
    await terminal.waitForScreen(/The parser is in src\/parse\.ts\./, { timeoutMs: 60_000 });
    const transcript = await onlyTranscript(claude);
    await handedOff(daemon, transcript);

    // Back: the choice is shown; the person interrupts before any reply and Claude Code gives the
    // prompt back, so the idle stretch goes on.
    let release: () => void = () => {};
    fake.enqueue(
      anthropicReply()
        .text('late')
        .until(new Promise<void>((resolve) => (release = resolve))),
    );
    await terminal.type('Now add the lexer');
    await terminal.sendKeys('Enter');
    expect(flat(await terminal.waitForScreen(/UserPromptSubmit says: ai-zen: handed off while idle/, { timeoutMs: 60_000 }))).toMatch(
      CHOICE,
    );
    await waitFor(() => fake.pending() === 0, { timeoutMs: 60_000, message: 'the prompt sent' });
    await terminal.sendKeys('Escape');
    await waitFor(
      async () => {
        const screen = await terminal.capture();
        return /❯\s+Now add the lexer/.test(screen) && !screen.includes('UserPromptSubmit says') ? screen : undefined;
      },
      { timeoutMs: 60_000, message: 'the prompt given back' },
    );
    release();

    // A restart: the records say the stretch was handed off, and that its person was told.
    expect((await daemon.daemon(['stop'])).code).toBe(0);
    await daemon.start();
    await handedOff(daemon, transcript);
    let asked: RecordedAnthropicRequest | undefined;
    fake.enqueue((request) => {
      asked = request;
      return anthropicReply().text('The lexer is in src/lex.ts.').usage(written(41_000));
    });
    // Whatever the screen kept of the first telling, the resubmitted prompt adds none.
    const told = (screen: string) => flat(screen).match(new RegExp(CHOICE.source, 'g'))?.length ?? 0;
    const shown = told(await terminal.capture());
    await terminal.sendKeys('Enter');
    const after = await terminal.waitForScreen(/The lexer is in src\/lex\.ts\./, { timeoutMs: 60_000 });
    expect(told(after)).toBe(shown);
    expect(asked?.lastUserText).toContain('Now add the lexer');
    expect(asked?.allText).not.toContain('while the user was away');
  });

  test('in a script: `claude -p --resume` of a session handed off while idle is not told, and the prompt goes on', async () => {
    const { daemon, fake, claude } = await setup();
    // A person's session (its transcript says so), left at the terminal; a script resumes it.
    fake.enqueue(anthropicReply().text('The parser is in src/parse.ts.').usage(written(40_000)));
    const terminal = await startInteractiveClaude('Add the parser', {
      cwd: daemon.root,
      home: claude,
      baseURL: fake.baseURL,
      env: { ...daemon.env, ...ONE_HOUR },
    });
    await terminal.waitForScreen(/The parser is in src\/parse\.ts\./, { timeoutMs: 60_000 });
    await terminal.kill();
    const transcript = await onlyTranscript(claude);
    await handedOff(daemon, transcript);

    let asked: RecordedAnthropicRequest | undefined;
    fake.enqueue((request) => {
      asked = request;
      return anthropicReply().text('The lexer is in src/lex.ts.').usage(written(41_000));
    });
    const resumed = await runClaude('Now add the lexer', {
      cwd: daemon.root,
      home: claude,
      baseURL: fake.baseURL,
      env: { ...daemon.env, ...ONE_HOUR },
      args: ['--resume', path.basename(transcript, '.jsonl'), '--output-format', 'stream-json', '--verbose'],
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('The lexer is in src/lex.ts.');
    expect(resumed.stdout).not.toContain('handed off while idle');
    expect(asked?.lastUserText).toContain('Now add the lexer');
    expect(asked?.allText).not.toContain('while the user was away');
  });
});
