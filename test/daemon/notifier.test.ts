import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appleScriptString, createNotifier, notifyCommand } from '../../src/daemon/side-channels/notifier.js';
import { startDbusSession, type DbusSession, type NotificationService } from '../support/dbus-session.js';
import { memoryLogger } from '../support/memory-logger.js';
import { waitFor } from '../support/wait-for.js';

describe('D4 desktop notifications on a real D-Bus session bus', () => {
  let bus: DbusSession;
  let service: NotificationService;

  beforeAll(async () => {
    bus = await startDbusSession();
    service = await bus.startNotificationService();
  });
  afterAll(async () => {
    await bus?.stop();
  });

  it('D4 a notification reaches the freedesktop service with our app name, title, body and urgency', async () => {
    const { logger } = memoryLogger();
    const notifier = createNotifier({ enabled: true, logger, env: { ...bus.env, PATH: process.env.PATH } });
    const outcome = await notifier.notify({
      title: 'ai-zen: session 1234abcd overflowed',
      body: '130k/128k tokens — handoff to .ai-zen/handoffs/a&b<1>.md',
      urgency: 'critical',
    });
    expect(outcome).toEqual({ sent: true });
    const calls = await waitFor(async () => ((await service.received()).length >= 1 ? service.received() : null));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      appName: 'ai-zen',
      summary: 'ai-zen: session 1234abcd overflowed',
      body: '130k/128k tokens — handoff to .ai-zen/handoffs/a&amp;b&lt;1&gt;.md',
    });
    expect(calls[0]!.hints.urgency).toBe(2);
  });

  it('D4 a title that looks like an option is still shown as the title', async () => {
    const { logger } = memoryLogger();
    const notifier = createNotifier({ enabled: true, logger, env: { ...bus.env, PATH: process.env.PATH } });
    const before = (await service.received()).length;
    expect(await notifier.notify({ title: '--help', body: 'low', urgency: 'low' })).toEqual({ sent: true });
    const calls = await service.received();
    expect(calls.slice(before)).toMatchObject([{ summary: '--help', body: 'low', hints: { urgency: 0 } }]);
  });

  it('D4 switched off, nothing is sent', async () => {
    const { logger } = memoryLogger();
    const before = (await service.received()).length;
    const notifier = createNotifier({ enabled: false, logger, env: { ...bus.env, PATH: process.env.PATH } });
    expect(await notifier.notify({ title: 't', body: 'b' })).toEqual({ sent: false, reason: 'disabled' });
    expect(await service.received()).toHaveLength(before);
  });
});

describe('D4 notifications never fail the daemon', () => {
  it('D4 no notification service on the bus: sent:false, logged, no throw', async () => {
    const bus = await startDbusSession();
    try {
      const { logger, records } = memoryLogger();
      const notifier = createNotifier({ enabled: true, logger, env: { ...bus.env, PATH: process.env.PATH } });
      const outcome = await notifier.notify({ title: 't', body: 'b' });
      expect(outcome.sent).toBe(false);
      expect(outcome.reason).toMatch(/notify-send failed: .*(ServiceUnknown|org\.freedesktop\.Notifications)/);
      expect(records).toContainEqual(expect.objectContaining({ msg: 'desktop notification not sent', reason: outcome.reason }));
    } finally {
      await bus.stop();
    }
  });

  it('D4 no notify-send binary: sent:false naming the package, no throw', async () => {
    const { logger, records } = memoryLogger();
    const notifier = createNotifier({ enabled: true, logger, env: { PATH: '/nonexistent' }, platform: 'linux' });
    expect(await notifier.notify({ title: 't', body: 'b' })).toEqual({
      sent: false,
      reason: 'notify-send not found (install libnotify-bin)',
    });
    expect(records.some((record) => record.msg === 'desktop notification not sent')).toBe(true);
  });

  it('D4 an unsupported platform: sent:false, no throw', async () => {
    const { logger } = memoryLogger();
    const notifier = createNotifier({ enabled: true, logger, platform: 'win32' });
    expect(await notifier.notify({ title: 't', body: 'b' })).toEqual({ sent: false, reason: 'no desktop notifications on win32' });
  });
});

describe('D4 macOS notification script', () => {
  it('D4 osascript gets one script with quotes and backslashes escaped', () => {
    const command = notifyCommand('darwin', { title: 'say "hi"', body: 'C:\\path "x"\nnext' });
    expect(command).toEqual({
      file: 'osascript',
      args: ['-e', 'display notification "C:\\\\path \\"x\\"\nnext" with title "say \\"hi\\""'],
    });
    expect(appleScriptString('a\u0007b')).toBe('"a b"');
  });
});
