// D4 end to end: a real daemon on a private D-Bus session bus with a notification service that
// records every Notify call — overflow (naming the session and its usage) and each handoff outcome,
// one notification per handoff with its commit folded in.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDbusSession, type DbusSession, type NotificationService, type NotifyCall } from '../support/dbus-session.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';
import { startSessionOwner } from './session-owner.js';

describe('D4 desktop notifications from the daemon', { timeout: 60_000 }, () => {
  let bus: DbusSession;
  let service: NotificationService;
  let daemon: DaemonRepo;

  beforeEach(async () => {
    bus = await startDbusSession();
    service = await bus.startNotificationService();
  });
  afterEach(async () => {
    await daemon?.cleanup();
    await bus?.stop();
  });

  const summaries = (calls: NotifyCall[]) => calls.map((call) => call.summary);

  it('a session the daemon hands off makes ONE notification: the handoff written, its commit folded in', async () => {
    daemon = await makeDaemonRepo({ env: bus.env });
    await daemon.start();
    const id = sessionId(7);
    await daemon.writeSession(id, { maxContextTokens: 128_000 });
    await daemon.appendLines(id, usageLine(131_000));
    const doc = await waitFor(
      async () => {
        const [handoff] = (await daemon.status()).handoffs;
        return handoff?.state === 'committed' ? handoff : null;
      },
      { timeoutMs: 30_000, message: 'the committed handoff' },
    );
    // Notifications go out in event order: once a later session's warning is there, every
    // notification of the handoff (and of its commit) has been sent.
    const later = sessionId(9);
    await daemon.writeSession(later, { maxContextTokens: 10_000 });
    await daemon.appendLines(later, usageLine(8_500));
    const calls = await waitFor(
      async () => {
        const received = await service.received();
        return summaries(received).includes('ai-zen session 00000009 at 85%') ? received : null;
      },
      { timeoutMs: 30_000, message: 'the later warning' },
    );
    expect(summaries(calls)).toEqual(['ai-zen: handoff written', 'ai-zen session 00000009 at 85%']);
    expect(calls[0]).toMatchObject({
      appName: 'ai-zen',
      body: `${doc.path} (session 00000007, offline) — checked ✓ — committed ${doc.commit!.slice(0, 7)}`,
    });
    expect(calls[0]!.hints.urgency).toBe(1);
  });

  it('with commit "ref" the one notification names the side ref', async () => {
    // The side ref is a trusted repo's choice (or the user's): an untrusted one's is ignored.
    daemon = await makeDaemonRepo({ env: bus.env, config: { daemon: { commit: 'ref' } }, trusted: true });
    await daemon.start();
    const id = sessionId(6);
    await daemon.writeSession(id, { maxContextTokens: 1000 });
    await daemon.appendLines(id, usageLine(1310));
    const [call] = await waitFor(async () => ((await service.received()).length > 0 ? service.received() : null), {
      timeoutMs: 30_000,
      message: 'the handoff notification',
    });
    const doc = (await daemon.status()).handoffs[0]!;
    expect(call!.body).toBe(
      `${doc.path} (session 00000006, offline) — checked ✓ — committed ${doc.commit!.slice(0, 7)} on ai-zen/handoffs`,
    );
  });

  it('D4 an owned session is still announced, naming its owner, and not as critical: its chat shows the selector', async () => {
    daemon = await makeDaemonRepo({ env: bus.env });
    await daemon.start();
    const started = await startSessionOwner(daemon.root, { create: 1000 }, daemon.env);
    if (!started.ok) throw new Error(started.error);
    try {
      await started.owner.usage(1500);
      const calls = await waitFor(async () => ((await service.received()).length > 0 ? service.received() : null), {
        timeoutMs: 30_000,
        message: 'the overflow notification',
      });
      expect(calls[0]).toMatchObject({
        summary: 'ai-zen: context window full',
        body: `session ${started.owner.id.slice(0, 8)} is at 1.5k/1k tokens — its ai-zen process hands it over`,
      });
      expect(calls[0]!.hints.urgency).toBe(1);
    } finally {
      await started.owner.kill();
    }
  });

  it('D4 switched off in the config, nothing reaches the desktop', async () => {
    daemon = await makeDaemonRepo({ env: bus.env, config: { daemon: { notifications: false } } });
    await daemon.start();
    const id = sessionId(8);
    await daemon.writeSession(id, { maxContextTokens: 1000 });
    await daemon.appendLines(id, usageLine(2000));
    await waitFor(async () => (await daemon.status()).handoffs[0]?.state === 'committed', {
      timeoutMs: 30_000,
      message: 'the handoff to be committed',
    });
    expect(await service.received()).toEqual([]);
  });
});
