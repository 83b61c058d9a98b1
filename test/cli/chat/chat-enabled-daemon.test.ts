// "ai-zen's own chat does the same": in a repo enabled by `ai-zen-daemon enable`, the
// `ai-zen` chat (in a real terminal) and a one-turn `ai-zen -p` bring the repo's daemon up, detached,
// when none runs, and `ai-zen-daemon ls` lists it. Neither waits for it: the daemon is held at a
// test gate (AI_ZEN_TEST_START_GATE, a FIFO) while the chat shows its prompt and answers, and while
// `-p` prints its answer and exits; only then is the gate opened.
import { execFile } from 'node:child_process';
import { constants, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { daemonLockName, isLockHeld } from '../../../src/lock/os-lock.js';
import { reply } from '../../support/fake-openai.js';
import { runCli } from '../../support/run-cli-in-process.js';
import { waitFor } from '../../support/wait-for.js';
import { DAEMON_BIN } from '../../daemon/daemon-harness.js';
import { makeChatFixture, type ChatFixture } from './chat-fixture.js';

const run = promisify(execFile);

describe('the ai-zen chat and -p in an enabled repo bring its daemon up', { timeout: 120_000 }, () => {
  let chat: ChatFixture | undefined;
  let env: Record<string, string> = {};
  let gate = '';
  afterEach(async () => {
    if (!chat) return;
    // Let a daemon still held at the gate go on, then stop it.
    const writer = await fs.open(gate, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => null);
    await writer?.close();
    await runCli(['stop'], { cwd: chat.repo.root, env, bin: DAEMON_BIN, timeoutMs: 60_000 }).catch(() => {});
    await chat.dispose();
    chat = undefined;
  });

  async function enabledRepo(): Promise<ChatFixture> {
    chat = await makeChatFixture();
    const runtime = path.join(path.dirname(chat.repo.root), 'run');
    await fs.mkdir(runtime, { mode: 0o700 });
    gate = path.join(path.dirname(chat.repo.root), 'start-gate');
    await run('mkfifo', [gate]);
    env = chat.env({
      XDG_RUNTIME_DIR: runtime,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: path.join(chat.repo.home, 'gitconfig'),
      CODEX_HOME: path.join(chat.repo.home, 'codex-home'),
      AI_ZEN_TEST_START_GATE: gate,
    });
    const enabled = await runCli(['enable'], { cwd: chat.repo.root, env, bin: DAEMON_BIN });
    expect(enabled.code, enabled.stderr).toBe(0);
    return chat;
  }

  const listed = async (): Promise<string[]> => {
    const ls = await runCli(['ls', '--json'], { cwd: os.tmpdir(), env, bin: DAEMON_BIN });
    expect(ls.code, ls.stderr).toBe(0);
    return (JSON.parse(ls.stdout) as { daemons: { repo: string }[] }).daemons.map((entry) => entry.repo);
  };

  /** The daemon was launched (its lock is held) but is held at the gate; opened, it comes up and ls lists it. */
  async function comesUpOnceTheGateOpens(root: string): Promise<void> {
    await waitFor(() => isLockHeld(daemonLockName(root), { env }), { timeoutMs: 30_000, message: 'the daemon launched by ai-zen' });
    expect(await listed()).toEqual([]);
    await fs.writeFile(gate, 'go');
    await waitFor(async () => ((await listed()).includes(root) ? true : null), { timeoutMs: 60_000, message: 'ls listing the daemon' });
  }

  it('the ai-zen chat in an enabled repo brings its daemon up, detached, without waiting for it; ls lists it, and it outlives the chat', async () => {
    const fixture = await enabledRepo();
    fixture.fake.enqueue(reply().text('Hello from the chat.'));
    const term = await fixture.open([], { env });
    await fixture.say('hello');
    await term.waitForScreen(/Hello from the chat\.\n› ?\n── /);
    await comesUpOnceTheGateOpens(fixture.repo.root);
    await fixture.say('/exit');
    expect(await term.waitForExit({ timeoutMs: 30_000 })).toBe(0);
    expect(await listed()).toEqual([fixture.repo.root]);
  });

  it('ai-zen -p in an enabled repo brings its daemon up too: the answer is printed and the process exits while the daemon is still starting', async () => {
    const fixture = await enabledRepo();
    fixture.fake.enqueue(reply().text('One turn.'));
    const turn = await runCli(['-p', 'hello'], { cwd: fixture.repo.root, env, timeoutMs: 60_000 });
    expect(turn.code, turn.stderr).toBe(0);
    expect(turn.stdout).toBe('One turn.\n');
    await comesUpOnceTheGateOpens(fixture.repo.root);
  });

  it('ai-zen -p in a repo that is not enabled (disable) launches no daemon', async () => {
    const fixture = await enabledRepo();
    expect((await runCli(['disable'], { cwd: fixture.repo.root, env, bin: DAEMON_BIN })).code).toBe(0);
    fixture.fake.enqueue(reply().text('Not enabled.'));
    const turn = await runCli(['-p', 'hello'], { cwd: fixture.repo.root, env, timeoutMs: 60_000 });
    expect(turn.code, turn.stderr).toBe(0);
    // A launch opens the daemon's output file before it spawns (launchDaemon); there is none.
    await expect(fs.access(path.join(fixture.repo.root, '.ai-zen', 'logs', 'daemon.out'))).rejects.toThrow();
    expect(await isLockHeld(daemonLockName(fixture.repo.root), { env })).toBe(false);
  });
});
