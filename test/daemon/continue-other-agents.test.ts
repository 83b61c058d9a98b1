// With the real clients offline: `ai-zen-daemon continue <session> --in claude|codex`
// runs the client from PATH in the repo's root, and the fake model receives the document pointer
// (then the document) as the first user prompt; the daemon links the successor to its predecessor;
// `ai-zen migrate --undo <session>` of such a session prints its resume command.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { CLAUDE_BIN, claudeTranscripts, makeClaudeHome, runClaude } from '../support/claude-client.js';
import { CODEX_BIN, codexEnv, codexExec, listRollouts, makeCodexHome } from '../support/codex-client.js';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { responsesReply, startFakeResponses, type FakeResponses } from '../support/fake-responses.js';
import { runCli } from '../support/run-cli.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const withPath = (folder: string) => `${folder}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`;

describe('continue elsewhere, with the real clients', { timeout: 240_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let anthropic: FakeAnthropic | undefined;
  let responses: FakeResponses | undefined;
  let base: string | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
    await anthropic?.close();
    await responses?.close();
    if (base) await fs.rm(base, { recursive: true, force: true });
    daemon = anthropic = responses = base = undefined;
  });

  it('continue --in claude runs claude from PATH, whose model gets the document pointer and text as the first prompt; the daemon links the successor; migrate --undo prints claude --resume', async () => {
    anthropic = await startFakeAnthropic();
    base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-continue-claude-'));
    const claude = await makeClaudeHome(base);
    daemon = await makeDaemonRepo({ env: { ...claude.env } });
    await daemon.start();
    anthropic.enqueue(anthropicReply().text('The parser is in src/parse.ts.').usage({ input_tokens: 20_000, output_tokens: 40 }));
    const first = await runClaude('Find where the config is parsed', { cwd: daemon.root, home: claude, baseURL: anthropic.baseURL });
    expect(first.code, first.stderr).toBe(0);
    const [transcript] = await claudeTranscripts(claude);
    const id = path.basename(transcript!, '.jsonl');
    await waitFor(async () => (await daemon!.status()).sessions.some((session) => session.id === id && session.promptTokens !== null), {
      timeoutMs: 30_000,
      message: 'the Claude Code session in status',
    });
    const handedOff = await daemon.daemon(['handoff', shortId(id)]);
    expect(handedOff.code, handedOff.stderr).toBe(0);
    const doc = handedOff.stdout.split('\n')[0]!;
    const text = await fs.readFile(path.join(daemon.root, doc), 'utf8');

    Object.assign(daemon.env, {
      HOME: claude.home,
      PATH: withPath(path.dirname(CLAUDE_BIN)),
      ANTHROPIC_BASE_URL: anthropic.baseURL,
      ANTHROPIC_API_KEY: 'test',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });
    const requestsBefore = anthropic.requests.length;
    anthropic.enqueue(anthropicReply().text('Reading the handoff document.').usage({ input_tokens: 9_000, output_tokens: 10 }));
    const ran = await daemon.daemon(['continue', shortId(id), '--in', 'claude', '--', '-p'], { timeoutMs: 120_000 });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('Reading the handoff document.');
    const main = anthropic.requests.slice(requestsBefore).find((request) => request.main)!;
    // Claude Code puts its own context blocks beside the prompt: the prompt is the pointer, then the document.
    const pointer = main.lastUserText.indexOf(`Read the handoff document ${doc} (the previous session's record)`);
    expect(pointer, main.lastUserText.slice(0, 400)).toBeGreaterThanOrEqual(0);
    expect(main.lastUserText.indexOf(text.trim().split('\n')[0]!, pointer)).toBeGreaterThan(pointer);

    const successor = path.basename((await claudeTranscripts(claude)).find((file) => file !== transcript)!, '.jsonl');
    const all = await waitFor(
      async () => {
        const shown = (await daemon!.daemon(['status', '--all'])).stdout.split('\n');
        return shown.find((line) => line.startsWith(`  ${shortId(id)}  `))?.includes(`handed off → ${shortId(successor)}`) ? shown : null;
      },
      { timeoutMs: 30_000, message: 'the predecessor handed off to the successor claude started' },
    );
    expect(all.find((line) => line.startsWith(`  ${shortId(successor)}  `))).not.toContain('handed off');

    const undo = await runCli(['migrate', '--undo', shortId(id)], { cwd: daemon.root, env: daemon.env, timeoutMs: 30_000 });
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toBe(`claude --resume ${id}\n`);
  });

  it('continue --in ai-zen from a Claude Code session starts an ai-zen session whose only history is the document path, and the daemon links the two', async () => {
    anthropic = await startFakeAnthropic();
    base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-continue-claude-'));
    const claude = await makeClaudeHome(base);
    daemon = await makeDaemonRepo({ env: { ...claude.env } });
    await daemon.start();
    anthropic.enqueue(anthropicReply().text('The parser is in src/parse.ts.').usage({ input_tokens: 20_000, output_tokens: 40 }));
    const first = await runClaude('Find where the config is parsed', { cwd: daemon.root, home: claude, baseURL: anthropic.baseURL });
    expect(first.code, first.stderr).toBe(0);
    const [transcript] = await claudeTranscripts(claude);
    const id = path.basename(transcript!, '.jsonl');
    await waitFor(async () => (await daemon!.status()).sessions.some((session) => session.id === id && session.promptTokens !== null), {
      timeoutMs: 30_000,
      message: 'the Claude Code session in status',
    });
    const handedOff = await daemon.daemon(['handoff', shortId(id)]);
    expect(handedOff.code, handedOff.stderr).toBe(0);
    const doc = handedOff.stdout.split('\n')[0]!;

    const printed = await daemon.daemon(['continue', shortId(id), '--in', 'ai-zen', '--print']);
    expect(printed.code, printed.stderr).toBe(0);
    const successor = /^ai-zen --resume (\S+)\n$/.exec(printed.stdout)![1]!;
    const lines = (await fs.readFile(path.join(daemon.root, '.ai-zen', 'sessions', `${successor}.jsonl`), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; definition?: boolean; message?: { content: unknown } });
    expect(lines.filter((line) => line.type === 'message' && line.definition !== true).map((line) => line.message!.content)).toEqual([doc]);
    await waitFor(
      async () => {
        const shown = (await daemon!.daemon(['status', '--all'])).stdout.split('\n');
        return shown.find((line) => line.startsWith(`  ${shortId(id)}  `))?.includes(`handed off → ${shortId(successor)}`) ? shown : null;
      },
      { timeoutMs: 30_000, message: 'the Claude Code session handed off to the ai-zen successor' },
    );
  });

  it('continue --in codex runs codex from PATH (here codex exec), whose model gets the document pointer as the first prompt; migrate --undo prints codex resume', async () => {
    responses = await startFakeResponses();
    daemon = await makeDaemonRepo();
    const codex = await makeCodexHome(path.dirname(daemon.root), { baseURL: responses.baseURL });
    (daemon.env as Record<string, string>).CODEX_HOME = codex.codexHome;
    await daemon.start();
    responses.enqueue(responsesReply().text('Working on the flag.').usage({ input_tokens: 30_000, output_tokens: 20 }));
    expect((await codexExec('add a --verbose flag', { cwd: daemon.root, home: codex })).code).toBe(0);
    const [rollout] = await listRollouts(codex);
    const session = await waitFor(
      async () => (await daemon!.status()).sessions.find((entry) => entry.agent === 'codex' && entry.promptTokens !== null) ?? null,
      { timeoutMs: 45_000, message: 'the Codex session in status' },
    );
    const handedOff = await daemon.daemon(['handoff', shortId(session.id)]);
    expect(handedOff.code, handedOff.stderr).toBe(0);
    const doc = handedOff.stdout.split('\n')[0]!;

    Object.assign(daemon.env, codexEnv(codex), { PATH: withPath(path.dirname(CODEX_BIN)) });
    const requestsBefore = responses.requests.length;
    responses.enqueue(responsesReply().text('Reading the handoff document.').usage({ input_tokens: 9_000, output_tokens: 10 }));
    const ran = await daemon.daemon(['continue', shortId(session.id), '--in', 'codex', '--', 'exec', '--skip-git-repo-check'], {
      timeoutMs: 120_000,
    });
    expect(ran.code, ran.stderr).toBe(0);
    const first = responses.requests[requestsBefore]!;
    expect(first.lastUserText.startsWith(`Read the handoff document ${doc} (the previous session's record)`)).toBe(true);
    expect((await listRollouts(codex)).filter((file) => file !== rollout)).toHaveLength(1);

    const undo = await runCli(['migrate', '--undo', shortId(session.id)], { cwd: daemon.root, env: daemon.env, timeoutMs: 30_000 });
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toBe(`codex resume ${session.id}\n`);
  });
});
