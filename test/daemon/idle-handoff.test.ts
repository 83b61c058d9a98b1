// The idle handoff with the real Claude Code client (its transcripts written by the client offline,
// against the fake Anthropic server, which answers cache_creation under the lifetime the client asked
// for) and real daemons in real git repos. The minutes are set small where a document must come;
// where none may come by default, the daemon's plan for the session is what `status` shows.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import type { SessionInfo } from '../../src/daemon/side-channels/status-schema.js';
import type { AnyEvent } from '../../src/events.js';
import { formatTokens } from '../../src/format-tokens.js';
import { claudeTranscripts, makeClaudeHome, runClaude, type ClaudeHome } from '../support/claude-client.js';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const CODEX_FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'fixtures', 'transcripts', 'codex');
const ONE_HOUR = { ENABLE_PROMPT_CACHING_1H: '1' };
/** What the API reports for a reply that wrote the whole prompt to the cache. */
const written = (tokens: number) => ({ input_tokens: 10, cache_creation_input_tokens: tokens - 10, output_tokens: 30 });
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

async function setup(idleHandoff: object): Promise<{ daemon: DaemonRepo; fake: FakeAnthropic; claude: ClaudeHome }> {
  fake = await startFakeAnthropic();
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-idle-'));
  const claude = await makeClaudeHome(base);
  daemon = await makeDaemonRepo({ env: { ...claude.env }, config: { agents: { 'claude-code': { idleHandoff } } } });
  await daemon.start();
  return { daemon, fake, claude };
}

/** The one transcript Claude wrote that `known` does not hold yet. */
async function newTranscript(claude: ClaudeHome, known: Set<string>): Promise<string> {
  const file = await waitFor(async () => (await claudeTranscripts(claude)).find((candidate) => !known.has(candidate)), {
    message: 'a new Claude Code transcript',
  });
  known.add(file);
  return file;
}

async function sessionOf(
  repo: DaemonRepo,
  transcript: string,
  ready: (session: SessionInfo) => boolean = () => true,
): Promise<SessionInfo> {
  return waitFor(async () => (await repo.status()).sessions.find((session) => session.transcript === transcript && ready(session)), {
    timeoutMs: 30_000,
    message: `the session of ${path.basename(transcript)} in status`,
  });
}

describe('an idle Claude Code session is handed off while its cache is warm', { timeout: 180_000 }, () => {
  test('by default: a 1-hour cache waits 45 minutes from the last reply, a 5-minute cache never', async () => {
    const { daemon, fake, claude } = await setup({ enabled: true, minTokens: 15_000 });
    const known = new Set<string>();
    fake.enqueue(anthropicReply().text('The parser is in.').usage(written(40_000)));
    expect((await runClaude('Add the parser', { cwd: daemon.root, home: claude, baseURL: fake.baseURL, env: ONE_HOUR })).code).toBe(0);
    const hour = await newTranscript(claude, known);
    fake.enqueue(anthropicReply().text('The lexer is in.').usage(written(40_000)));
    expect((await runClaude('Add the lexer', { cwd: daemon.root, home: claude, baseURL: fake.baseURL })).code).toBe(0);
    const fiveMinutes = await newTranscript(claude, known);

    const lastReply = (text: string) =>
      Date.parse(
        text
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line))
          .findLast((line) => line.type === 'assistant').timestamp,
      );
    const hourReply = lastReply(await fs.readFile(hour, 'utf8'));
    const hourly = await sessionOf(daemon, hour, (session) => session.idle?.state === 'waiting');
    expect(hourly.idle).toEqual({
      state: 'waiting',
      why: null,
      at: new Date(hourReply + 45 * 60_000).toISOString(),
      cacheUntil: new Date(hourReply + 60 * 60_000).toISOString(),
      document: null,
    });
    const short = await sessionOf(daemon, fiveMinutes, (session) => session.promptTokens === 40_000);
    expect(short.idle).toEqual({
      state: 'off',
      why: '5-minute cache: a re-write costs about what a document does',
      at: null,
      cacheUntil: null,
      document: null,
    });
    const status = (await daemon.daemon(['status'])).stdout;
    expect(status).toMatch(new RegExp(`${path.basename(hour, '.jsonl').slice(0, 8)} .* cache warm · (59|60)m left`));
    expect((await daemon.status()).handoffs).toEqual([]);
  });

  test('one document marked idle, committed and announced; none under minTokens, none while a tool runs, none for Codex; the transcripts untouched', async () => {
    const { daemon, fake, claude } = await setup({ enabled: true, minTokens: 15_000, afterMinutes: 0.05 });
    const client = await daemon.connect();
    const seen: AnyEvent[] = [];
    await client.subscribe((event: AnyEvent) => seen.push(event));
    // A Codex session of this repo over minTokens, as the real client wrote it.
    const rollout = path.join(daemon.env.CODEX_HOME!, 'sessions', '2026', '12', '04');
    await fs.mkdir(rollout, { recursive: true });
    const codexFile = path.join(rollout, 'rollout-2026-12-04T04-15-53-01a23f44-0ae8-71c3-a073-982f1d89666d.jsonl');
    const codexText = (await fs.readFile(path.join(CODEX_FIXTURE, 'http-server.jsonl'), 'utf8')).replaceAll('{{ROOT}}', daemon.root);
    await fs.writeFile(codexFile, codexText);
    const known = new Set<string>();

    // Running a tool: the command waits until the test lets it go.
    const release = path.join(base!, 'release');
    fake.enqueue(
      anthropicReply()
        .tool('Bash', { command: `while [ ! -e ${release} ]; do sleep 0.1; done; echo released` })
        .usage(written(40_000)),
    );
    const toolRun = runClaude('Run the slow build', {
      cwd: daemon.root,
      home: claude,
      baseURL: fake.baseURL,
      env: ONE_HOUR,
      timeoutMs: 120_000,
    });
    const tool = await newTranscript(claude, known);
    expect((await sessionOf(daemon, tool, (session) => session.idle?.state === 'busy')).idle?.why).toBe('running a tool');

    fake.enqueue(anthropicReply().text('A small answer.').usage(written(10_000)));
    expect((await runClaude('What is 2+2?', { cwd: daemon.root, home: claude, baseURL: fake.baseURL, env: ONE_HOUR })).code).toBe(0);
    const small = await newTranscript(claude, known);

    fake.enqueue(anthropicReply().text('The parser is in src/parse.ts; its tests pass.').usage(written(40_000)));
    const big = await runClaude('Add the parser to src/parse.ts. Never touch package-lock.json.', {
      cwd: daemon.root,
      home: claude,
      baseURL: fake.baseURL,
      env: ONE_HOUR,
    });
    expect(big.code, big.stderr).toBe(0);
    const idle = await newTranscript(claude, known);
    const before = await sha(idle);
    const id = path.basename(idle, '.jsonl');

    const handedOff = await sessionOf(daemon, idle, (session) => session.idle?.state === 'handed-off');
    const document = handedOff.idle!.document!;
    expect(document).toMatch(new RegExp(`^\\.ai-zen/handoffs/\\d{8}-\\d{6}-${id.slice(0, 8)}\\.md$`));
    expect(await fs.readFile(path.join(daemon.root, document), 'utf8')).toContain('Never touch package-lock.json.');
    const clock = /handed off while idle (\d\d:\d\d)/.exec(handedOff.action ?? '')?.[1];
    expect(clock).toBeDefined();
    await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.path === document && entry.state === 'committed'), {
      timeoutMs: 45_000,
      message: 'the idle document committed',
    });
    const handoffs = JSON.parse((await daemon.daemon(['handoffs', '--json'])).stdout).handoffs;
    expect(handoffs).toEqual([
      expect.objectContaining({ path: document, sessionId: id, executor: 'offline', trigger: 'idle', state: 'committed' }),
    ]);
    expect(seen.filter((event) => event.name === 'handoff.written').map((event) => event.payload)).toEqual([
      expect.objectContaining({ sessionId: id, path: document, agent: 'claude-code', executor: 'offline', trigger: 'idle' }),
    ]);
    expect((await daemon.daemon(['status'])).stdout).toContain(`handed off while idle ${clock}: ${document}`);
    // The choice on return, at the price of Claude Code's default model (Opus 5.5: $8 per million written to the 1-hour cache).
    const idleReturn = seen.find((event) => event.name === 'handoff.written')?.payload as { idleReturn?: { freshTokens: number } };
    expect(idleReturn.idleReturn).toEqual({ freshTokens: expect.any(Number), resumeTokens: 40_000, resumeDollars: 0.32 });
    expect((await daemon.daemon(['status'])).stdout).toContain(
      `/clear continues fresh (~${formatTokens(idleReturn.idleReturn!.freshTokens)} tokens); resuming this session re-writes ~40k tokens (~$0.32)`,
    );

    // The tool session's idle point passed long before this one's: it is still busy, and has nothing.
    expect((await sessionOf(daemon, tool)).idle).toMatchObject({ state: 'busy', why: 'running a tool' });
    expect((await sessionOf(daemon, small)).idle).toMatchObject({ state: 'off', why: '10000 tokens, under minTokens 15000' });
    const codex = await sessionOf(daemon, codexFile, (session) => session.promptTokens !== null);
    expect(codex.promptTokens).toBeGreaterThan(15_000);
    expect(codex.idle).toBeUndefined();
    expect((await daemon.status()).handoffs.map((entry) => entry.sessionId)).toEqual([id]);
    expect(await sha(idle)).toBe(before);
    expect(await fs.readFile(codexFile, 'utf8')).toBe(codexText);

    // Its tool done and its turn over, the tool session sits idle too: its own document, one for it.
    fake.enqueue(anthropicReply().text('The build passed.').usage(written(41_000)));
    await fs.writeFile(release, '');
    expect((await toolRun).code).toBe(0);
    await sessionOf(daemon, tool, (session) => session.idle?.state === 'handed-off');
    const after = JSON.parse((await daemon.daemon(['handoffs', '--json'])).stdout).handoffs;
    expect(after.map((entry: { sessionId: string; trigger: string }) => [entry.sessionId, entry.trigger])).toEqual([
      [id, 'idle'],
      [path.basename(tool, '.jsonl'), 'idle'],
    ]);
  });
});
