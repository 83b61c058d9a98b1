// A real pseudo-terminal for tests: each session runs on a private tmux server (`tmux -L <unique>`,
// its socket in a temp folder), so tests never touch a developer's tmux and never see each other.
// Tests type with `sendKeys`/`type` and synchronise on what the screen shows (`waitForScreen`),
// never on sleeps.
//
//   await using term = await startTmux({ command: [process.execPath, CLI_PATH], cwd, env });
//   await term.waitForScreen(/› /);
//   await term.type('hello'); await term.sendKeys('Enter');
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface StartTmuxOptions {
  /** The program and its arguments, run directly in the pane. */
  readonly command: readonly string[];
  readonly cwd: string;
  /** Merged over a minimal environment (PATH, HOME, TMPDIR, TZ); undefined removes a key. */
  readonly env?: Record<string, string | undefined>;
  readonly width?: number;
  readonly height?: number;
}

export interface WaitOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

export interface TmuxSession {
  /** tmux key names (`Enter`, `Escape`, `C-c`, `C-d`, `Down`) or literal words without spaces. */
  sendKeys(...keys: string[]): Promise<void>;
  /** Types text literally (no key-name lookup). */
  type(text: string): Promise<void>;
  /** The visible screen, wrapped lines joined, trailing blank lines dropped; `escapes` keeps colours and attributes. */
  capture(options?: { escapes?: boolean }): Promise<string>;
  /** Polls the screen until `pattern` matches; rejects at the deadline with the last screen in the message. */
  waitForScreen(pattern: RegExp, options?: WaitOptions): Promise<string>;
  /** Resolves with the exit status once the program in the pane has ended. */
  waitForExit(options?: WaitOptions): Promise<number>;
  /** Whether the program in the pane is still running. */
  isRunning(): Promise<boolean>;
  kill(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const MINIMAL_ENV_KEYS = ['PATH', 'HOME', 'TMPDIR', 'TZ'];

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export async function startTmux(options: StartTmuxOptions): Promise<TmuxSession> {
  const socketName = `ai-zen-${process.pid}-${randomBytes(4).toString('hex')}`;
  // The socket lives in its own short temp folder (socket paths are limited to ~100 bytes).
  const socketDir = await fs.mkdtemp(path.join(os.tmpdir(), 'azt-'));
  const configFile = path.join(socketDir, 'tmux.conf');
  await fs.writeFile(
    configFile,
    [
      // Keep the pane after the program exits, so its last screen can still be read.
      'set -g remain-on-exit on',
      // Pass a lone Escape on at once (the program decides what it means).
      'set -s escape-time 0',
      'set -g status off',
      'set -g history-limit 5000',
      '',
    ].join('\n'),
  );

  const env: Record<string, string> = {};
  for (const key of MINIMAL_ENV_KEYS) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  env.LANG = 'C.UTF-8';
  env.TMUX_TMPDIR = socketDir;
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  delete env.TMUX;

  const tmux = async (...args: string[]): Promise<string> => {
    const { stdout } = await run('tmux', ['-u', '-L', socketName, '-f', configFile, ...args], { env, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  };

  // The private server is started by the first command below, so it (and the pane) inherits `env`.
  // A small shell runs the program and writes its exit status to a file: tmux does not always reap
  // a pane's process promptly, so its own pane_dead_status cannot be waited on. The trap keeps the
  // shell alive through a Ctrl-C meant for the program (a handled signal resets to default in the child).
  const statusFile = path.join(socketDir, 'exit-status');
  const commandLine = `sh -c ${shellQuote('trap : INT; "$@"; echo $? > "$0"')} ${[statusFile, ...options.command].map(shellQuote).join(' ')}`;

  await tmux(
    'new-session',
    '-d',
    '-s',
    'test',
    '-x',
    String(options.width ?? 120),
    '-y',
    String(options.height ?? 40),
    '-c',
    options.cwd,
    commandLine,
  );
  const target = 'test:0.0';

  let killed = false;
  const session: TmuxSession = {
    async sendKeys(...keys) {
      await tmux('send-keys', '-t', target, ...keys);
    },
    async type(text) {
      await tmux('send-keys', '-t', target, '-l', text);
    },
    async capture({ escapes = false } = {}) {
      const screen = await tmux('capture-pane', '-p', '-J', ...(escapes ? ['-e'] : []), '-t', target);
      return screen.replace(/\s+$/, '');
    },
    async waitForScreen(pattern, { timeoutMs = 15_000, intervalMs = 40 } = {}) {
      const deadline = Date.now() + timeoutMs;
      let screen = '';
      for (;;) {
        screen = await session.capture();
        if (pattern.test(screen)) return screen;
        if (Date.now() >= deadline) {
          throw new Error(`screen did not show ${pattern} within ${timeoutMs} ms; it shows:\n${screen}\n---`);
        }
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
    },
    async isRunning() {
      return !(await fs.readFile(statusFile, 'utf8').catch(() => '')).endsWith('\n');
    },
    async waitForExit({ timeoutMs = 15_000, intervalMs = 40 } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const status = await fs.readFile(statusFile, 'utf8').catch(() => '');
        if (status.endsWith('\n')) return Number(status.trim());
        if (Date.now() >= deadline)
          throw new Error(`the program did not exit within ${timeoutMs} ms; the screen shows:\n${await session.capture()}\n---`);
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
    },
    async kill() {
      if (killed) return;
      killed = true;
      // The pane's programs run in their own session, led by the pane's shell: a program still
      // writing its files as it quits (Claude Code on SIGHUP) would race the test's cleanup of them.
      const leader = Number((await tmux('display-message', '-p', '-t', target, '#{pane_pid}').catch(() => '')).trim());
      await tmux('kill-server').catch(() => {});
      if (leader > 0) await sessionGone(leader);
      await fs.rm(socketDir, { recursive: true, force: true });
    },
    [Symbol.asyncDispose]() {
      return session.kill();
    },
  };
  return session;
}

/** Waits until no process of session `leader` lives (each exits on the terminal's hangup), killing any left after 10 s. */
async function sessionGone(leader: number): Promise<void> {
  const members = async () => {
    const pids: number[] = [];
    for (const name of await fs.readdir('/proc').catch(() => [] as string[])) {
      if (!/^\d+$/.test(name)) continue;
      const stat = await fs.readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
      // Fields after the command's closing parenthesis: state, ppid, pgrp, session.
      const [state, , , session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z' && Number(session) === leader) pids.push(Number(name));
    }
    return pids;
  };
  const deadline = Date.now() + 10_000;
  for (let left = await members(); left.length > 0; left = await members()) {
    if (Date.now() >= deadline) {
      for (const pid of left) process.kill(pid, 'SIGKILL');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}
