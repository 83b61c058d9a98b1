// Desktop notifications (D4): on overflow and on each handoff's outcome. Linux goes through the
// freedesktop notification service on the session D-Bus (notify-send, from libnotify-bin); macOS
// through osascript. A missing binary or no service on the bus is logged and reported as
// sent:false — a notification is never worth failing anything for.
import type { Logger } from 'pino';
import type { Env } from '../../paths.js';
import { runProcess } from '../../run-process.js';

export type Urgency = 'low' | 'normal' | 'critical';

export interface Notification {
  readonly title: string;
  readonly body: string;
  readonly urgency?: Urgency;
}

export interface NotifyOutcome {
  readonly sent: boolean;
  readonly reason?: string;
}

export interface Notifier {
  notify(notification: Notification): Promise<NotifyOutcome>;
}

export interface NotifierOptions {
  /** config.daemon.notifications; false → every notify answers sent:false 'disabled'. */
  readonly enabled: boolean;
  readonly logger: Logger;
  /** The environment for the notifier process: DBUS_SESSION_BUS_ADDRESS (or XDG_RUNTIME_DIR) says which bus. */
  readonly env?: Env;
  readonly platform?: NodeJS.Platform;
  readonly timeoutMs?: number;
}

export const APP_NAME = 'ai-zen';

export function createNotifier(options: NotifierOptions): Notifier {
  const { enabled, logger } = options;
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const timeoutMs = options.timeoutMs ?? 5000;

  return {
    async notify(notification) {
      if (!enabled) return { sent: false, reason: 'disabled' };
      const command = notifyCommand(platform, notification);
      if (!command) return failed(`no desktop notifications on ${platform}`);
      const outcome = await run(command.file, command.args, env, timeoutMs);
      if (outcome.sent) logger.debug({ title: notification.title }, 'notification sent');
      else return failed(outcome.reason ?? 'unknown failure');
      return outcome;
    },
  };

  function failed(reason: string): NotifyOutcome {
    logger.warn({ reason }, 'desktop notification not sent');
    return { sent: false, reason };
  }
}

/** The program and arguments that show `notification` on `platform`, or null where there is none. */
export function notifyCommand(platform: NodeJS.Platform, notification: Notification): { file: string; args: string[] } | null {
  const urgency = notification.urgency ?? 'normal';
  if (platform === 'darwin') {
    const script = `display notification ${appleScriptString(notification.body)} with title ${appleScriptString(notification.title)}`;
    return { file: 'osascript', args: ['-e', script] };
  }
  if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd') {
    // `--` so a title starting with '-' is not read as an option; the body is markup for most
    // servers (GNOME, KDE, dunst), so a path with '&' or '<' is escaped to survive.
    return {
      file: 'notify-send',
      args: [`--app-name=${APP_NAME}`, `--urgency=${urgency}`, '--', notification.title, escapeMarkup(notification.body)],
    };
  }
  return null;
}

/** An AppleScript string literal: quotes and backslashes escaped, control characters flattened. */
export function appleScriptString(text: string): string {
  // eslint-disable-next-line no-control-regex
  const flattened = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ');
  return `"${flattened.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function escapeMarkup(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

async function run(file: string, args: string[], env: Env, timeoutMs: number): Promise<NotifyOutcome> {
  const result = await runProcess(file, args, { env, timeoutMs, killGraceMs: 1000, maxBuffer: 64 * 1024 });
  if (result.startError?.code === 'ENOENT')
    return { sent: false, reason: `${file} not found${file === 'notify-send' ? ' (install libnotify-bin)' : ''}` };
  if (result.startError) return { sent: false, reason: `${file} could not start: ${result.startError.message}` };
  if (result.stopped) return { sent: false, reason: `${file} did not finish within ${timeoutMs} ms` };
  if (result.exitCode === 0) return { sent: true };
  const status = result.exitCode === null ? `killed by ${result.signal}` : `exit code ${result.exitCode}`;
  const detail = result.stderr.trim().split('\n')[0] || status;
  return { sent: false, reason: `${file} failed: ${detail}` };
}
