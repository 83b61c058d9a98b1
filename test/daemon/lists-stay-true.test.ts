// The lists stay true after a day's work: a Claude Code session whose process has gone is `exited`
// and folded out of `status`, `sessions` and `top` (`--all` shows it), a handoff by a wrong id does
// not offer it, and a daemon that starts and reads yesterday's live session does not call it working.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { claudeSlug } from '../../src/daemon/sources/claude-code/claude-paths.js';
import { SessionsReply } from '../../src/daemon/side-channels/status-schema.js';
import { shortId } from '../../src/short-id.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';

const GONE = '51111111-2222-4333-8444-555555555555';
const RUNNING = '52222222-2222-4333-8444-555555555555';
const HOUR_AGO = new Date(Date.now() - 3600_000);

let daemon: DaemonRepo | null = null;
let base: string | null = null;
afterEach(async () => {
  if (daemon && (await daemon.running())) await daemon.daemon(['stop']);
  await daemon?.cleanup();
  if (base) await fs.rm(base, { recursive: true, force: true });
  daemon = base = null;
});

function transcriptText(cwd: string, sessionId: string): string {
  const line = (entry: object) =>
    `${JSON.stringify({ parentUuid: null, isSidechain: false, cwd, sessionId, version: '2.1.332', timestamp: HOUR_AGO.toISOString(), ...entry })}\n`;
  return (
    line({ type: 'user', message: { role: 'user', content: 'Fix the parser' } }) +
    line({
      type: 'assistant',
      message: {
        id: `msg_${sessionId.slice(0, 4)}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: 'Looking at it.' }],
        usage: { input_tokens: 20_000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 20 },
      },
    })
  );
}

describe('lists that stay true', () => {
  test('an exited session folds out of status, sessions and top (--all shows it), is not offered by a handoff error, and a restart does not make old sessions working', async () => {
    base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-lists-'));
    const claudeHome = path.join(base, 'claude');
    daemon = await makeDaemonRepo({ env: { CLAUDE_CONFIG_DIR: claudeHome } });
    const folder = path.join(claudeHome, 'projects', claudeSlug(daemon.root));
    await fs.mkdir(folder, { recursive: true });
    for (const id of [GONE, RUNNING]) {
      const file = path.join(folder, `${id}.jsonl`);
      await fs.writeFile(file, transcriptText(daemon.root, id));
      await fs.utimes(file, HOUR_AGO, HOUR_AGO);
    }
    // Claude Code's record of its running session: this test process stands for the agent that still runs one.
    await fs.mkdir(path.join(claudeHome, 'sessions'), { recursive: true });
    await fs.writeFile(path.join(claudeHome, 'sessions', `${process.pid}.json`), JSON.stringify({ pid: process.pid, sessionId: RUNNING }));
    await daemon.start();

    const status = await daemon.status();
    expect(status.sessions.map((session) => [session.id, session.state])).toEqual([[RUNNING, 'open']]);
    expect(status.exitedSessions).toBe(1);
    const text = (await daemon.daemon(['status'])).stdout;
    expect(text).toContain('sessions (1 open, 1 exited: status --all shows them)');
    expect(text).not.toContain(shortId(GONE));
    const all = (await daemon.daemon(['status', '--all'])).stdout;
    expect(all).toMatch(new RegExp(`${shortId(GONE)} .*exited`));

    const listed = (await daemon.daemon(['sessions'])).stdout;
    expect(listed).not.toContain(shortId(GONE));
    expect(listed).toContain('1 more exited or handed off: sessions --all shows them');
    const json = SessionsReply.parse(JSON.parse((await daemon.daemon(['sessions', '--json'])).stdout)).sessions;
    expect(json.map((session) => session.id)).toEqual([RUNNING]);
    const every = SessionsReply.parse(JSON.parse((await daemon.daemon(['sessions', '--all', '--json'])).stdout)).sessions;
    expect(every.map((session) => [session.id, session.state])).toEqual([
      [GONE, 'exited'],
      [RUNNING, 'open'],
    ]);

    // Read a moment ago by a daemon that just started, written an hour ago: idle, not working.
    const top = (await daemon.daemon(['top', '--once'])).stdout;
    expect(top).not.toContain(shortId(GONE));
    expect(top).toMatch(new RegExp(`${shortId(RUNNING)}.* idle`));
    expect(top).not.toContain('working');

    const refused = await daemon.daemon(['handoff', 'zzzz']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`open ones: ${shortId(RUNNING)} (claude-code)`);
    expect(refused.stderr).not.toContain(shortId(GONE));

    // An ai-zen session the daemon handed off (its window overflowed, nobody had it open) is not offered either.
    const older = sessionId(9);
    await daemon.writeSession(older, { maxContextTokens: 1000 });
    await daemon.appendLines(older, usageLine(1500));
    await waitFor(async () => (await daemon!.status()).closedSessions === 1, { timeoutMs: 30_000, message: 'the session handed off' });
    const again = await daemon.daemon(['handoff', 'zzzz']);
    expect(again.stderr).toContain('open ones: ');
    expect(again.stderr).not.toContain(shortId(older));
    expect(again.stderr).not.toContain(shortId(GONE));
    expect((await daemon.daemon(['status'])).stdout).toMatch(/sessions \(\d+ open, 1 handed off, 1 exited: status --all shows them\)/);
  }, 60_000);
});
