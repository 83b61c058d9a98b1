// The idle handoff's fork executor with the real Claude Code client: the daemon runs
// `claude -p --resume <id> --fork-session` headless against the fake Anthropic server; the fork
// reads the brief and writes the document on the warm prefix. The original transcript is never
// written, ai-zen's hooks answer nothing in the fork, and the fork's measured cost is recorded.
import { createHash } from 'node:crypto';
import { promises as fs, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { AnyEvent } from '../../src/events.js';
import { CLAUDE_BIN, claudeTranscripts, makeClaudeHome, runClaude, type ClaudeHome } from '../support/claude-client.js';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { briefNamedIn } from '../support/brief-named.js';
import { processAlive } from '../support/process-alive.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const ONE_HOUR = { ENABLE_PROMPT_CACHING_1H: '1' };
const sha = async (file: string) =>
  createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');
const DOCUMENT = `# Handoff\n\n${HANDOFF_SECTIONS.map((heading) => `## ${heading}\n\nThe user asked to add the parser; it is added.\n`).join('\n')}`;

let daemon: DaemonRepo | undefined;
let fake: FakeAnthropic | undefined;
let base: string | undefined;
afterEach(async () => {
  await daemon?.cleanup();
  await fake?.close();
  if (base) await fs.rm(base, { recursive: true, force: true });
  daemon = fake = base = undefined;
});

/** `command`: the fork's `claude` comes from the user's config, and the daemon's PATH has none. */
async function setup(
  fork: object = {},
  options: { command?: boolean } = {},
): Promise<{ daemon: DaemonRepo; fake: FakeAnthropic; claude: ClaudeHome; hookLog: string }> {
  fake = await startFakeAnthropic();
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-fork-'));
  const claude = await makeClaudeHome(base);
  const hookLog = path.join(base, 'hook-answers.log');
  // As a daemon started from a Claude Code hook: the client's own environment, its `claude` on PATH.
  const env = {
    ...claude.env,
    PATH: options.command ? (process.env.PATH ?? '/usr/bin:/bin') : `${path.dirname(CLAUDE_BIN)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: claude.home,
    ANTHROPIC_BASE_URL: fake.baseURL,
    ANTHROPIC_API_KEY: 'test',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...ONE_HOUR,
    AI_ZEN_HOOK_DEBUG: hookLog,
  };
  daemon = await makeDaemonRepo({
    env,
    trusted: true,
    config: {
      agents: { 'claude-code': { idleHandoff: { enabled: true, minTokens: 15_000, afterMinutes: 0.05, executor: 'fork', ...fork } } },
    },
  });
  if (options.command)
    await fs.writeFile(
      path.join(daemon.env.AI_ZEN_HOME!, 'config.json'),
      JSON.stringify({ agents: { 'claude-code': { command: CLAUDE_BIN } } }),
    );
  await daemon.start();
  expect((await daemon.daemon(['install-hooks', 'claude'])).code).toBe(0);
  return { daemon, fake, claude, hookLog };
}

async function idleSession(daemon: DaemonRepo, fake: FakeAnthropic, claude: ClaudeHome): Promise<string> {
  fake.enqueue(
    anthropicReply()
      .text('The parser is in src/parse.ts.')
      .usage({ input_tokens: 10, cache_creation_input_tokens: 39_990, output_tokens: 30 }),
  );
  const run = await runClaude('Add the parser to src/parse.ts.', { cwd: daemon.root, home: claude, baseURL: fake.baseURL, env: ONE_HOUR });
  expect(run.code, run.stderr).toBe(0);
  return waitFor(async () => (await claudeTranscripts(claude))[0], { message: 'the session transcript' });
}

describe('the fork executor writes an idle Claude Code session its document', { timeout: 240_000 }, () => {
  test('the fork writes it on the warm prefix; the original is untouched, hooks leave the fork alone, its cost is recorded', async () => {
    const { daemon, fake, claude, hookLog } = await setup();
    const client = await daemon.connect();
    const seen: AnyEvent[] = [];
    await client.subscribe((event: AnyEvent) => seen.push(event));
    const original = await idleSession(daemon, fake, claude);
    const before = await sha(original);
    const id = path.basename(original, '.jsonl');
    let target = '';
    fake.enqueue(
      (request) =>
        anthropicReply()
          .tool('Read', { file_path: briefNamedIn(request.allText) })
          .usage({ input_tokens: 50, cache_read_input_tokens: 40_000, output_tokens: 20 }),
      (request) => {
        target = /to exactly this path: (\S+\.md)/.exec(request.allText)?.[1] ?? 'missing';
        return anthropicReply()
          .tool('Write', { file_path: target, content: DOCUMENT })
          .usage({ input_tokens: 60, cache_read_input_tokens: 41_000, cache_creation_input_tokens: 900, output_tokens: 400 });
      },
      anthropicReply().text('Handoff written.').usage({ input_tokens: 70, cache_read_input_tokens: 42_000, output_tokens: 10 }),
    );
    const written = await waitFor(() => seen.find((event) => event.name === 'handoff.written')?.payload as any, {
      timeoutMs: 120_000,
      message: 'the idle document written',
    });
    expect(written).toMatchObject({ sessionId: id, executor: 'fork', trigger: 'idle' });
    expect(path.join(daemon.root, written.path)).toBe(target);
    expect(await fs.readFile(target, 'utf8')).toContain('The user asked to add the parser');
    // The fork's own turn, as --output-format json counts it (three requests).
    expect(written.forkCost).toMatchObject({ output: 430, cacheRead: 123_000 });
    expect(written.forkCost.dollars).toBeGreaterThan(0);
    // A fork of the session: its requests carry the session's conversation and ask for the session's model.
    const main = fake.requests.filter((request) => request.main);
    const forkRequests = main.filter((request) => request.allText.includes('[ai-zen handoff]'));
    expect(forkRequests.length).toBe(3);
    expect(forkRequests[0]!.allText).toContain('Add the parser to src/parse.ts.');
    expect(new Set(forkRequests.map((request) => request.body.model))).toEqual(new Set([main[0]!.body.model]));
    // The cached prefix is the session's: the fork's permission rules change neither its tools nor its system prompt.
    expect(forkRequests[0]!.body.tools).toEqual(main[0]!.body.tools);
    expect(forkRequests[0]!.body.system).toEqual(main[0]!.body.system);
    expect(await sha(original)).toBe(before);
    // The fork's transcript is gone, and it never became a session of the person's.
    expect(await claudeTranscripts(claude)).toEqual([original]);
    expect((await daemon.status()).sessions.map((session) => session.transcript)).toEqual([original]);
    // The hooks answered nothing in the fork: none of its hook runs reached ai-zen.
    const answers = await fs.readFile(hookLog, 'utf8').catch(() => '');
    expect(answers).toBe('');
    await waitFor(
      async () => (await daemon.status()).handoffs.find((entry) => entry.path === written.path && entry.state === 'committed'),
      {
        timeoutMs: 45_000,
        message: 'the fork document committed',
      },
    );
    const handoffs = (await daemon.daemon(['handoffs'])).stdout;
    expect(handoffs).toMatch(/fork {2}fork cost \S+ tokens in \(123k cached\) \+ 430 out \(~\$0\.\d+\)/);
  });

  test('the fork runs the configured claude and writes only its document: told to write elsewhere or read outside the repo, it cannot', async () => {
    const { daemon, fake, claude } = await setup({}, { command: true });
    const client = await daemon.connect();
    const seen: AnyEvent[] = [];
    await client.subscribe((event: AnyEvent) => seen.push(event));
    const original = await idleSession(daemon, fake, claude);
    const before = await sha(original);
    const outside = path.join(base!, 'outside.md');
    const inRepo = path.join(daemon.root, 'src', 'planted.ts');
    const secret = path.join(base!, 'secret.txt');
    await fs.writeFile(secret, 'the-secret-outside-the-repo');
    let target = '';
    let afterRead = '';
    fake.enqueue(
      (request) => {
        target = /to exactly this path: (\S+\.md)/.exec(request.allText)?.[1] ?? 'missing';
        return anthropicReply()
          .tool('Write', { file_path: outside, content: DOCUMENT })
          .usage({ input_tokens: 50, cache_read_input_tokens: 40_000, output_tokens: 20 });
      },
      anthropicReply()
        .tool('Write', { file_path: inRepo, content: 'export const planted = 1;\n' })
        .usage({ input_tokens: 50, cache_read_input_tokens: 40_000, output_tokens: 20 }),
      anthropicReply().tool('Read', { file_path: secret }).usage({ input_tokens: 50, cache_read_input_tokens: 40_000, output_tokens: 20 }),
      (request) => {
        afterRead = request.allText;
        return anthropicReply()
          .tool('Write', { file_path: target, content: DOCUMENT })
          .usage({ input_tokens: 60, cache_read_input_tokens: 41_000, output_tokens: 400 });
      },
      anthropicReply().text('Handoff written.').usage({ input_tokens: 70, cache_read_input_tokens: 42_000, output_tokens: 10 }),
    );
    const written = await waitFor(() => seen.find((event) => event.name === 'handoff.written')?.payload as any, {
      timeoutMs: 120_000,
      message: 'the idle document written',
    });
    // The document, by the configured claude: the daemon's PATH has none.
    expect(written).toMatchObject({ executor: 'fork', trigger: 'idle' });
    expect(path.join(daemon.root, written.path)).toBe(target);
    expect(await fs.readFile(target, 'utf8')).toContain('The user asked to add the parser');
    // Nothing written anywhere else, in the repo or out of it, and nothing read from outside it.
    await expect(fs.stat(outside)).rejects.toThrow(/ENOENT/);
    await expect(fs.stat(inRepo)).rejects.toThrow(/ENOENT/);
    expect(afterRead).not.toBe('');
    expect(afterRead).not.toContain('the-secret-outside-the-repo');
    expect(await sha(original)).toBe(before);
  });

  test('a fork that writes no document downgrades to the offline document, saying why', async () => {
    const { daemon, fake, claude } = await setup();
    const client = await daemon.connect();
    const seen: AnyEvent[] = [];
    await client.subscribe((event: AnyEvent) => seen.push(event));
    const original = await idleSession(daemon, fake, claude);
    const before = await sha(original);
    fake.enqueue(
      anthropicReply().text('I would rather not.').usage({ input_tokens: 50, cache_read_input_tokens: 40_000, output_tokens: 20 }),
    );
    const written = await waitFor(() => seen.find((event) => event.name === 'handoff.written')?.payload as any, {
      timeoutMs: 120_000,
      message: 'the idle document written',
    });
    expect(written).toMatchObject({ executor: 'offline', trigger: 'idle' });
    expect(seen.find((event) => event.name === 'handoff.downgraded')?.payload).toMatchObject({
      from: 'fork',
      to: 'offline',
      reason: expect.stringContaining('the fork wrote no handoff document'),
    });
    const listed = JSON.parse((await daemon.daemon(['handoffs', '--json'])).stdout).handoffs;
    expect(listed).toEqual([expect.objectContaining({ executor: 'offline', downgrades: [expect.objectContaining({ from: 'fork' })] })]);
    expect(await sha(original)).toBe(before);
  });

  test('a fork whose document fails its checks downgrades to the offline document, and its document is not kept', async () => {
    const { daemon, fake, claude } = await setup();
    const client = await daemon.connect();
    const seen: AnyEvent[] = [];
    await client.subscribe((event: AnyEvent) => seen.push(event));
    await idleSession(daemon, fake, claude);
    let target = '';
    // Every section but the last: a document, but not a whole handoff.
    const partial = `# Handoff\n\n${HANDOFF_SECTIONS.slice(0, -1)
      .map((heading) => `## ${heading}\n\nThe user asked to add the parser; it is added.\n`)
      .join('\n')}`;
    fake.enqueue(
      (request) => {
        target = /to exactly this path: (\S+\.md)/.exec(request.allText)?.[1] ?? 'missing';
        return anthropicReply()
          .tool('Write', { file_path: target, content: partial })
          .usage({ input_tokens: 60, cache_read_input_tokens: 40_000, output_tokens: 300 });
      },
      anthropicReply().text('Handoff written.').usage({ input_tokens: 70, cache_read_input_tokens: 40_500, output_tokens: 10 }),
    );
    const written = await waitFor(() => seen.find((event) => event.name === 'handoff.written')?.payload as any, {
      timeoutMs: 120_000,
      message: 'the idle document written',
    });
    expect(written).toMatchObject({ executor: 'offline', trigger: 'idle' });
    expect(seen.find((event) => event.name === 'handoff.downgraded')?.payload).toMatchObject({
      from: 'fork',
      reason: expect.stringContaining("the fork's document failed its checks"),
    });
    const folder = path.dirname(target);
    const kept = await Promise.all((await fs.readdir(folder)).map((name) => fs.readFile(path.join(folder, name), 'utf8')));
    expect(kept.length).toBe(1);
    expect(kept).not.toContain(partial);
  });

  test('a fork that does not finish in time is killed and the offline document written instead', async () => {
    // Long enough for the client to start and send its request on a loaded machine.
    const { daemon, fake, claude } = await setup({ forkTimeoutSeconds: 8 });
    const client = await daemon.connect();
    const seen: AnyEvent[] = [];
    await client.subscribe((event: AnyEvent) => seen.push(event));
    const original = await idleSession(daemon, fake, claude);
    const before = await sha(original);
    let release: () => void = () => {};
    // The fork's request is never answered until the test ends: only the timeout ends the fork.
    fake.enqueue(
      anthropicReply()
        .text('late')
        .until(new Promise<void>((resolve) => (release = resolve))),
    );
    const written = await waitFor(() => seen.find((event) => event.name === 'handoff.written')?.payload as any, {
      timeoutMs: 120_000,
      message: 'the idle document written',
    });
    release();
    expect(written).toMatchObject({ executor: 'offline', trigger: 'idle' });
    expect(seen.find((event) => event.name === 'handoff.downgraded')?.payload).toMatchObject({
      from: 'fork',
      reason: 'the fork did not finish within 8s',
    });
    expect(await sha(original)).toBe(before);
    expect(await claudeTranscripts(claude)).toEqual([original]);
  });

  test('the daemon stopping kills a running fork with its process group', async () => {
    const { daemon, fake, claude } = await setup({ forkTimeoutSeconds: 600 });
    const original = await idleSession(daemon, fake, claude);
    const id = path.basename(original, '.jsonl');
    let release: () => void = () => {};
    fake.enqueue(
      anthropicReply()
        .text('late')
        .until(new Promise<void>((resolve) => (release = resolve))),
    );
    // The fork, found by its command line: it resumes this session as a fork.
    const forks = () =>
      readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .filter((pid) => {
          try {
            const line = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
            return line.includes('--fork-session') && line.includes(id);
          } catch {
            return false;
          }
        })
        .map(Number)
        .filter(processAlive);
    const [fork] = await waitFor(() => (forks().length > 0 ? forks() : undefined), { timeoutMs: 60_000, message: 'the fork running' });
    // Mid-turn: its request is in and waits on the reply.
    await waitFor(() => fake.pending() === 0, { timeoutMs: 60_000, message: "the fork's request sent" });
    await daemon.cleanup();
    await waitFor(() => !processAlive(fork!), { timeoutMs: 20_000, message: 'the fork killed when the daemon stopped' });
    release();
    expect(forks()).toEqual([]);
  });
});
