// With the real clients offline: `install-hooks` registers `ai-zen-daemon mcp`, the
// successor started from a handoff document runs, the fake model calls the MCP tool, and the
// client's own transcript holds the tool's answer — what its predecessor did, read back.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { claudeTranscripts, makeClaudeHome, runClaude } from '../support/claude-client.js';
import { codexExec, listRollouts, makeCodexHome } from '../support/codex-client.js';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { responsesReply, startFakeResponses, type FakeResponses } from '../support/fake-responses.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

describe('ai-zen-daemon mcp with the real clients', { timeout: 240_000 }, () => {
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

  it('install-hooks claude registers the MCP server; a Claude Code successor calls search_history and its transcript shows what its predecessor did', async () => {
    anthropic = await startFakeAnthropic();
    base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-mcp-claude-'));
    const claude = await makeClaudeHome(base);
    daemon = await makeDaemonRepo({ env: { ...claude.env } });
    const installed = await daemon.daemon(['install-hooks', 'claude']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('MCP server ai-zen');
    await daemon.start();

    // The predecessor: a session whose request carries a ticket number only it knows.
    anthropic.enqueue(anthropicReply().text('The parser lives in src/parse.ts.').usage({ input_tokens: 20_000, output_tokens: 40 }));
    const first = await runClaude('Fix ticket QX-7781: the config parser drops comments', {
      cwd: daemon.root,
      home: claude,
      baseURL: anthropic.baseURL,
      env: { ...daemon.env },
    });
    expect(first.code, first.stderr).toBe(0);
    const [transcript] = await claudeTranscripts(claude);
    const id = path.basename(transcript!, '.jsonl');
    await waitFor(async () => (await daemon!.status()).sessions.some((session) => session.id === id && session.promptTokens !== null), {
      timeoutMs: 30_000,
      message: 'the Claude Code session in status',
    });
    const handedOff = await daemon.daemon(['handoff', shortId(id)]);
    expect(handedOff.code, handedOff.stderr).toBe(0);
    const next = handedOff.stdout.trimEnd().split('\n')[2]!;
    const prompt = /^ {2}continue with: claude "((?:[^"\\]|\\.)*)"$/.exec(next)![1]!.replace(/\\(["$`\\])/g, '$1');

    // The successor: the model asks ai-zen's MCP server, then answers.
    anthropic.enqueue(
      anthropicReply()
        .tool('mcp__ai-zen__search_history', { search: 'QX-\\d+', regex: true })
        .usage({ input_tokens: 9_000, output_tokens: 10 }),
      anthropicReply().text('Found the ticket.').usage({ input_tokens: 9_500, output_tokens: 10 }),
    );
    const second = await runClaude(prompt, { cwd: daemon.root, home: claude, baseURL: anthropic.baseURL, env: { ...daemon.env } });
    expect(second.code, second.stderr).toBe(0);
    const successor = (await claudeTranscripts(claude)).find((file) => file !== transcript)!;
    const lines = (await fs.readFile(successor, 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { type?: string; message?: { content?: unknown } });
    const results = lines.flatMap((line) =>
      line.type === 'user' && Array.isArray(line.message?.content)
        ? (line.message.content as { type?: string; content?: unknown; is_error?: boolean }[]).filter((part) => part.type === 'tool_result')
        : [],
    );
    expect(results).toHaveLength(1);
    const shown = JSON.stringify(results[0]!.content);
    expect(results[0]!.is_error ?? false, shown).toBe(false);
    // The server knows its caller: the Claude Code process that started it names its session.
    expect(shown).toContain(
      `predecessors of session ${shortId(path.basename(successor, '.jsonl'))} (claude-code, the session that started this server)`,
    );
    expect(shown).toContain('Fix ticket QX-7781: the config parser drops comments');
    expect(shown).toContain(shortId(id));
  });

  it('install-hooks codex registers the MCP server in config.toml; a Codex successor calls search_history and its rollout shows what its predecessor did', async () => {
    responses = await startFakeResponses();
    daemon = await makeDaemonRepo();
    // A model of Codex's catalog gets MCP tools behind tool_search; one it does not know is offered them at once.
    const codex = await makeCodexHome(path.dirname(daemon.root), { baseURL: responses.baseURL, model: 'ai-zen-test-model' });
    (daemon.env as Record<string, string>).CODEX_HOME = codex.codexHome;
    const installed = await daemon.daemon(['install-hooks', 'codex']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('MCP server ai-zen');
    await daemon.start();

    responses.enqueue(responsesReply().text('The parser lives in src/parse.ts.').usage({ input_tokens: 30_000, output_tokens: 20 }));
    const first = await codexExec('Fix ticket QX-7781: the config parser drops comments', {
      cwd: daemon.root,
      home: codex,
      env: { ...daemon.env },
    });
    expect(first.code, first.stderr).toBe(0);
    const [rollout] = await listRollouts(codex);
    const listed = await waitFor(
      async () => (await daemon!.status()).sessions.find((session) => session.agent === 'codex' && session.promptTokens !== null) ?? null,
      { timeoutMs: 45_000, message: 'the Codex session in status' },
    );
    const handedOff = await daemon.daemon(['handoff', shortId(listed.id)]);
    expect(handedOff.code, handedOff.stderr).toBe(0);
    const next = handedOff.stdout.trimEnd().split('\n')[2]!;
    const prompt = /^ {2}continue with: codex "((?:[^"\\]|\\.)*)"$/.exec(next)![1]!.replace(/\\(["$`\\])/g, '$1');

    // The successor's first request offers ai-zen's tools: the model calls search_history, then answers.
    let toolNames: string[] = [];
    let called = false;
    let waits = 0;
    responses.handle((request) => {
      if (called) return undefined;
      toolNames = (request.body?.tools ?? []).map((tool: { name?: string }) => String(tool.name ?? ''));
      // Codex offers an MCP server's tools as one namespace (mcp__ai_zen); a call names it.
      const ours = (request.body?.tools ?? []).find((tool: { name?: string }) => tool.name === 'mcp__ai_zen') as
        | { tools?: { name?: string }[] }
        | undefined;
      const search = ours?.tools?.some((tool) => tool.name === 'search_history') ? 'search_history' : undefined;
      // Codex may ask before the server has answered its tools/list: a harmless turn, and ask again.
      if (!search) {
        waits += 1;
        return waits < 10 ? responsesReply().exec('sleep 1').usage({ input_tokens: 9_000, output_tokens: 10 }) : undefined;
      }
      called = true;
      return responsesReply()
        .callIn('mcp__ai_zen', search, { search: 'QX-\\d+', regex: true })
        .usage({ input_tokens: 9_000, output_tokens: 10 });
    });
    responses.enqueue(responsesReply().text('Found the ticket.').usage({ input_tokens: 9_500, output_tokens: 10 }));
    const second = await codexExec(prompt, { cwd: daemon.root, home: codex, env: { ...daemon.env }, timeoutMs: 90_000 });
    expect(second.code, second.stderr).toBe(0);
    expect(
      called,
      `tools offered: ${toolNames.join(', ')}\n${second.stderr.slice(-3000)}\n${await fs.readFile(path.join(codex.codexHome, 'config.toml'), 'utf8')}`,
    ).toBe(true);
    const successor = (await listRollouts(codex)).find((file) => file !== rollout)!;
    const text = await fs.readFile(successor, 'utf8');
    const outputs = text
      .split('\n')
      .filter((line) => line.includes('function_call_output') || line.includes('mcp_tool_call'))
      .join('\n');
    expect(outputs).toContain('Fix ticket QX-7781: the config parser drops comments');
    expect(outputs).toContain('(codex, the latest session that continues another)');
    expect(outputs).toContain(shortId(listed.id));
  });
});
