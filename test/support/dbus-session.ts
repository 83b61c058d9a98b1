// A private D-Bus session bus for the notification tests (D4): its own dbus-daemon with a
// config that allows nothing but a socket in a temp folder (no service activation, so a name
// that nobody owns is really missing), and an optional recording notification service on it.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const serviceScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'notification-service.py');

export interface NotifyCall {
  readonly id: number;
  readonly appName: string;
  readonly summary: string;
  readonly body: string;
  readonly appIcon: string;
  readonly actions: string[];
  readonly hints: Record<string, unknown>;
  readonly expireTimeout: number;
}

export interface NotificationService {
  /** Every Notify call received so far, in order. */
  received(): Promise<NotifyCall[]>;
  stop(): Promise<void>;
}

export interface DbusSession {
  readonly address: string;
  /** DBUS_SESSION_BUS_ADDRESS for a child process (nothing else). */
  readonly env: { DBUS_SESSION_BUS_ADDRESS: string };
  startNotificationService(): Promise<NotificationService>;
  stop(): Promise<void>;
}

export async function startDbusSession(): Promise<DbusSession> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-dbus-'));
  const config = path.join(dir, 'session.conf');
  await fs.writeFile(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=${path.join(dir, 'bus')}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`,
  );
  const daemon = spawn('dbus-daemon', [`--config-file=${config}`, '--print-address', '--nofork'], { stdio: ['ignore', 'pipe', 'pipe'] });
  // Its stderr has harmless warnings as root in a container (fd limit); kept for a failed start only.
  const address = (await firstLine(daemon, 'dbus-daemon')).trim();
  const children: ChildProcess[] = [daemon];

  return {
    address,
    env: { DBUS_SESSION_BUS_ADDRESS: address },
    async startNotificationService() {
      const recordFile = path.join(dir, `notifications-${children.length}.jsonl`);
      await fs.writeFile(recordFile, '');
      const service = spawn('/usr/bin/python3', [serviceScript, recordFile], {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: address },
      });
      children.push(service);
      const line = await firstLine(service, 'notification service');
      if (line.trim() !== 'ready') throw new Error(`notification service said ${JSON.stringify(line)}`);
      return {
        async received() {
          const text = await fs.readFile(recordFile, 'utf8');
          return text
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as NotifyCall);
        },
        stop: () => stopChild(service),
      };
    },
    async stop() {
      for (const child of children.reverse()) await stopChild(child);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

function firstLine(child: ChildProcess, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let errors = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => (errors = (errors + text).slice(-4000)));
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (text: string) => {
      buffer += text;
      const end = buffer.indexOf('\n');
      if (end >= 0) resolve(buffer.slice(0, end));
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before it was ready: ${errors}`)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
