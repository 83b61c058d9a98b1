// §4–5 through the CLI a person runs: where each session stands, in words (over the
// threshold, window full, handed off → its successor, folded out of the open list), one rounding rule
// for percentages, and a session named by the prefix `status` prints. The real Claude Code and Codex
// clients' hand-made handoffs are in x3-handoff-by-hand.test.ts.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StatusInfo } from '../../src/daemon/side-channels/status-schema.js';
import { claudeSlug } from '../../src/daemon/sources/claude-code/claude-paths.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';

const CLAUDE_ID = '1a2b3c4d-2222-4333-8444-555555555555';
const CLAUDE_FULL_ID = '5e6f7a8b-2222-4333-8444-555555555555';

describe('§4–5 readable states and sessions named by prefix', { timeout: 120_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let claudeDir: string | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
    if (claudeDir) await fs.rm(claudeDir, { recursive: true, force: true });
  });

  /** A Claude Code transcript (claude-sonnet-4-5, a 200k window) whose last reading is `tokens`. */
  async function claudeTranscript(id: string, tokens: number): Promise<string> {
    const folder = path.join(claudeDir!, 'projects', claudeSlug(daemon!.root));
    await fs.mkdir(folder, { recursive: true });
    const common = { isSidechain: false, cwd: daemon!.root, sessionId: id, timestamp: new Date().toISOString() };
    const lines = [
      { ...common, type: 'user', message: { role: 'user', content: 'Add an install section to the README.' } },
      {
        ...common,
        type: 'assistant',
        message: {
          id: `msg_${id.slice(0, 4)}`,
          model: 'claude-sonnet-4-5',
          role: 'assistant',
          content: [{ type: 'text', text: 'Added it.' }],
          usage: { input_tokens: tokens - 1_000, cache_creation_input_tokens: 0, cache_read_input_tokens: 1_000, output_tokens: 5 },
        },
      },
    ];
    const file = path.join(folder, `${id}.jsonl`);
    await fs.writeFile(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    return file;
  }

  it('status words where each session stands: over the threshold below 100% (rounded down), window full at it, and a handed-off session as handed off → its successor, folded out of the open list but shown by --all and in --json', async () => {
    claudeDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-states-claude-'));
    // The daemon hands nothing over by itself here: the states are what is read.
    daemon = await makeDaemonRepo({
      env: { CLAUDE_CONFIG_DIR: claudeDir },
      config: { agents: { 'claude-code': { graceSeconds: 3600 } } },
    });
    await daemon.start();
    // 145,990 of 200k is 72.995%: 72% rounded down (the handoff point is judged exactly), not 73%.
    await claudeTranscript(CLAUDE_ID, 145_990);
    await claudeTranscript(CLAUDE_FULL_ID, 200_000);
    // An ai-zen session over its window, which the daemon migrates: its successor exists.
    const old = sessionId(31);
    await daemon.writeSession(old, { maxContextTokens: 1000 });
    await daemon.appendLines(old, usageLine(1001));
    const status = await waitFor(
      async () => {
        const current = await daemon!.status();
        const ready = current.closedSessions === 1 && current.sessions.filter((session) => session.agent === 'claude-code').length === 2;
        return ready && current.sessions.some((session) => session.id === CLAUDE_FULL_ID && session.percent === 100) ? current : null;
      },
      { timeoutMs: 60_000, message: 'the migrated session and both Claude Code transcripts' },
    );
    const successor = status.sessions.find((session) => session.agent === 'ai-zen')!;
    expect(successor.id).not.toBe(old);

    const shown = await daemon.daemon(['status']);
    expect(shown.code).toBe(0);
    const line = (id: string) => shown.stdout.split('\n').find((text) => text.startsWith(`  ${id.slice(0, 8)}  `));
    expect(shown.stdout).toContain('sessions (3 open, 1 handed off: status --all shows them)');
    expect(line(CLAUDE_ID)).toMatch(/ 72% {2}146k\/200k .* · over the threshold/);
    expect(line(CLAUDE_FULL_ID)).toMatch(/ 100% {2}200k\/200k .* · window full/);
    expect(line(old)).toBeUndefined();
    expect(shown.stdout).not.toMatch(/OVERFLOWED|migrated →/);

    const all = await daemon.daemon(['status', '--all']);
    expect(all.stdout).toContain('sessions (3 open, 1 handed off)\n');
    expect(all.stdout.split('\n').find((text) => text.startsWith(`  ${old.slice(0, 8)}  `))).toContain(
      `handed off → ${successor.id.slice(0, 8)}`,
    );
    const json = StatusInfo.parse(JSON.parse((await daemon.daemon(['status', '--all', '--json'])).stdout));
    expect(Object.fromEntries(json.sessions.map((session) => [session.id, session.state]))).toEqual({
      [old]: 'handed-off',
      [successor.id]: 'open',
      [CLAUDE_ID]: 'over-threshold',
      [CLAUDE_FULL_ID]: 'overflowed',
    });
    expect(json.sessions.find((session) => session.id === old)?.successorId).toBe(successor.id);
  });

  it('handoff takes the prefix status prints for an ai-zen session; an ambiguous or unknown one is one line naming the candidates, exit 1', async () => {
    daemon = await makeDaemonRepo();
    await daemon.start();
    for (const n of [11, 12]) {
      await daemon.writeSession(sessionId(n), { maxContextTokens: 100_000 });
      await daemon.appendLines(sessionId(n), usageLine(40_000));
    }
    await waitFor(async () => (await daemon!.status()).sessions.length === 2, { message: 'both sessions listed' });

    const ambiguous = await daemon.daemon(['handoff', '0000001']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toBe('ai-zen-daemon: "0000001" names 2 sessions: 00000011 (ai-zen), 00000012 (ai-zen); give more of the id\n');
    const unknown = await daemon.daemon(['handoff', 'ffff']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(`ai-zen-daemon: no session "ffff" in ${daemon.root}; open ones: 00000011 (ai-zen), 00000012 (ai-zen)\n`);
    expect(await handoffDocs(daemon.root)).toEqual([]);

    const byPrefix = await daemon.daemon(['handoff', '00000012']);
    expect(byPrefix.stderr).toBe('');
    expect(byPrefix.code).toBe(0);
    expect(byPrefix.stdout).toMatch(/^\.ai-zen\/handoffs\/\d{8}-\d{6}-00000012\.md\n {2}written by offline for session 00000012\n$/);
  });
});
