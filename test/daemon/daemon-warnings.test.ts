// S5 and X3: a real daemon warns once per crossing of the warning
// threshold — ai-zen's own sessions at config `warnAt` (80%), Claude Code's at
// `agents.claude-code.warnAt` (60%) — on a private D-Bus session bus whose notification service
// records every Notify call, and as a `session.warned` event to an IPC subscriber. The overflow (or
// the handoff) that follows is the barrier: notifications go out in event order, so everything the
// warnings could have sent has been sent once it arrived.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StatusInfo } from '../../src/daemon/side-channels/status-schema.js';
import { claudeSlug } from '../../src/daemon/sources/claude-code/claude-paths.js';
import type { AnyEvent } from '../../src/events.js';
import { startDbusSession, type DbusSession, type NotificationService, type NotifyCall } from '../support/dbus-session.js';
import { shortId } from '../../src/short-id.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';

const summaries = (calls: NotifyCall[]) => calls.map((call) => call.summary);
const warnedEvents = (events: AnyEvent[]) => events.filter((event) => event.name === 'session.warned');

describe('S5 the daemon warns before the window is full', { timeout: 120_000 }, () => {
  let bus: DbusSession;
  let service: NotificationService;
  let daemon: DaemonRepo | null = null;
  let claudeDir: string | null = null;

  beforeEach(async () => {
    bus = await startDbusSession();
    service = await bus.startNotificationService();
  });
  afterEach(async () => {
    await daemon?.cleanup();
    daemon = null;
    if (claudeDir) await fs.rm(claudeDir, { recursive: true, force: true });
    claudeDir = null;
    await bus?.stop();
  });

  /** A daemon on the private bus, and every event it publishes from now on. */
  async function start(
    options: { config?: object; env?: Record<string, string> } = {},
  ): Promise<{ daemon: DaemonRepo; events: AnyEvent[] }> {
    daemon = await makeDaemonRepo({ env: { ...bus.env, ...options.env }, ...(options.config ? { config: options.config } : {}) });
    await daemon.start();
    const client = await daemon.connect();
    const events: AnyEvent[] = [];
    await client.subscribe((event) => events.push(event));
    return { daemon, events };
  }

  /** Waits until the daemon has read this reading (each reading is its own read, none coalesced). */
  async function read(repo: DaemonRepo, id: string, promptTokens: number): Promise<void> {
    const client = await repo.connect();
    await waitFor(
      async () => {
        const status = await client.request<StatusInfo>('status');
        return status.sessions.find((session) => session.id === id)?.promptTokens === promptTokens;
      },
      { timeoutMs: 30_000, message: `the daemon to read ${promptTokens} tokens` },
    );
  }

  async function notificationsUntil(summary: string): Promise<NotifyCall[]> {
    return waitFor(
      async () => {
        const received = await service.received();
        return summaries(received).includes(summary) ? received : null;
      },
      { timeoutMs: 60_000, message: `the notification "${summary}"` },
    );
  }

  it('S5 an ai-zen session crossing warnAt (80%): one notification and one session.warned; still above: nothing more; below and across again: one more', async () => {
    const { daemon, events } = await start();
    const id = sessionId(21);
    await daemon.writeSession(id, { maxContextTokens: 10_000 });
    for (const tokens of [5_000, 8_200, 8_500, 3_000, 8_100]) {
      await daemon.appendLines(id, usageLine(tokens));
      await read(daemon, id, tokens);
    }
    await daemon.appendLines(id, usageLine(11_000));
    const calls = await notificationsUntil('ai-zen: handoff written');
    const upToOverflow = calls.slice(0, summaries(calls).indexOf('ai-zen: handoff written'));
    expect(upToOverflow.map((call) => [call.summary, call.body])).toEqual([
      [
        `ai-zen session 00000021 at 82%`,
        `8.2k/10k tokens, warning at 80% — hand off now with /handoff or /migrate in its chat, or: ai-zen-daemon handoff ${shortId(id)}`,
      ],
      [
        `ai-zen session 00000021 at 81%`,
        `8.1k/10k tokens, warning at 80% — hand off now with /handoff or /migrate in its chat, or: ai-zen-daemon handoff ${shortId(id)}`,
      ],
    ]);
    await waitFor(() => events.some((event) => event.name === 'session.overflowed'), { timeoutMs: 30_000, message: 'the overflow event' });
    expect(warnedEvents(events).map((event) => event.payload)).toEqual([
      {
        sessionId: id,
        agent: 'ai-zen',
        percent: 82,
        warnAt: 80,
        promptTokens: 8_200,
        maxContextTokens: 10_000,
        handoffAt: null,
        transcript: expect.stringMatching(new RegExp(`${id}\\.jsonl$`)),
      },
      {
        sessionId: id,
        agent: 'ai-zen',
        percent: 81,
        warnAt: 80,
        promptTokens: 8_100,
        maxContextTokens: 10_000,
        handoffAt: null,
        transcript: expect.stringMatching(new RegExp(`${id}\\.jsonl$`)),
      },
    ]);
  });

  it('S5 "daemon": { "warnings": false } — no warning, no session.warned; the handoff is still announced', async () => {
    const { daemon, events } = await start({ config: { daemon: { warnings: false } } });
    const id = sessionId(22);
    await daemon.writeSession(id, { maxContextTokens: 10_000 });
    for (const tokens of [5_000, 8_200]) {
      await daemon.appendLines(id, usageLine(tokens));
      await read(daemon, id, tokens);
    }
    await daemon.appendLines(id, usageLine(11_000));
    const calls = await notificationsUntil('ai-zen: handoff written');
    expect(summaries(calls)[0]).toBe('ai-zen: handoff written');
    await waitFor(() => events.some((event) => event.name === 'session.overflowed'), { timeoutMs: 30_000, message: 'the overflow event' });
    expect(warnedEvents(events)).toEqual([]);
  });

  it('S5 a session already above warnAt when the daemon starts is history: no warning for it, nor for its next reading above', async () => {
    daemon = await makeDaemonRepo({ env: bus.env });
    const id = sessionId(23);
    await daemon.writeSession(id, { maxContextTokens: 10_000 });
    await daemon.appendLines(id, usageLine(8_500));
    await daemon.start();
    const client = await daemon.connect();
    const events: AnyEvent[] = [];
    await client.subscribe((event) => events.push(event));
    await read(daemon, id, 8_500);
    await daemon.appendLines(id, usageLine(8_700));
    await read(daemon, id, 8_700);
    await daemon.appendLines(id, usageLine(11_000));
    const calls = await notificationsUntil('ai-zen: handoff written');
    expect(summaries(calls)[0]).toBe('ai-zen: handoff written');
    expect(warnedEvents(events)).toEqual([]);
  });

  it('X3 a Claude Code transcript crossing agents.claude-code.warnAt (60%): one warning naming the agent and where the daemon hands it off, then the handoff at 70%', async () => {
    claudeDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-warn-claude-'));
    const { daemon, events } = await start({
      env: { CLAUDE_CONFIG_DIR: claudeDir },
      config: { agents: { 'claude-code': { graceSeconds: 0 } } },
    });
    const id = '1a2b3c4d-2222-4333-8444-555555555555';
    const folder = path.join(claudeDir, 'projects', claudeSlug(daemon.root));
    await fs.mkdir(folder, { recursive: true });
    const file = path.join(folder, `${id}.jsonl`);
    let reply = 0;
    const assistant = (tokens: number) => {
      reply += 1;
      return {
        type: 'assistant',
        isSidechain: false,
        cwd: daemon.root,
        sessionId: id,
        timestamp: new Date().toISOString(),
        message: {
          id: `msg_${reply}`,
          model: 'claude-sonnet-4-5',
          role: 'assistant',
          content: [{ type: 'text', text: `step ${reply} done` }],
          usage: { input_tokens: tokens - 1_000, cache_creation_input_tokens: 0, cache_read_input_tokens: 1_000, output_tokens: 5 },
        },
      };
    };
    const user = {
      type: 'user',
      isSidechain: false,
      cwd: daemon.root,
      sessionId: id,
      timestamp: new Date().toISOString(),
      message: { role: 'user', content: 'Add an install section to the README.' },
    };
    const append = (line: object) => fs.appendFile(file, `${JSON.stringify(line)}\n`);
    await append(user);
    for (const tokens of [50_000, 122_000, 125_000]) {
      await append(assistant(tokens));
      await read(daemon, id, tokens);
    }
    await append(assistant(150_000));
    const calls = await notificationsUntil('ai-zen: Claude Code handoff written');
    const upToHandoff = calls.slice(0, summaries(calls).indexOf('ai-zen: Claude Code handoff written'));
    expect(upToHandoff.map((call) => [call.summary, call.body])).toEqual([
      [
        'Claude Code session 1a2b3c4d at 61%',
        '122k/200k tokens, warning at 60% — the daemon hands it off at 70%, with a document and the command that continues fresh; to hand it off now: ai-zen-daemon handoff 1a2b3c4d',
      ],
    ]);
    expect(warnedEvents(events).map((event) => event.payload)).toEqual([
      {
        sessionId: id,
        agent: 'claude-code',
        percent: 61,
        warnAt: 60,
        promptTokens: 122_000,
        maxContextTokens: 200_000,
        handoffAt: 70,
        transcript: file,
      },
    ]);
  });
});
