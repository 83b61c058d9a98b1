// Issue 23 §3 with the real clients offline: `install-hooks` registers `ai-zen-daemon mcp`, the
// successor started from a handoff document runs, the fake model calls the MCP tool, and the
// client's own transcript holds the tool's answer — what its predecessor did, read back.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { claudeTranscripts, makeClaudeHome, runClaude } from '../support/claude-client.js';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

describe('issue 23 §3 ai-zen-daemon mcp with the real clients', { timeout: 240_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let anthropic: FakeAnthropic | undefined;
  let base: string | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
    await anthropic?.close();
    if (base) await fs.rm(base, { recursive: true, force: true });
    daemon = anthropic = base = undefined;
  });

  it('issue 23 §3: install-hooks claude registers the MCP server; a Claude Code successor calls search_history and its transcript shows what its predecessor did', async () => {
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
    expect(shown).toContain(`predecessors of session ${shortId(path.basename(successor, '.jsonl'))} (claude-code)`);
    expect(shown).toContain('Fix ticket QX-7781: the config parser drops comments');
    expect(shown).toContain(shortId(id));
  });
});
