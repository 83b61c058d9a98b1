// R19 end to end: the person presses Esc at the real chat's overflow selector and
// leaves; a real daemon started on the repo afterwards finds the skip in the session file and does
// not hand the session over behind their back.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusInfo } from '../../../src/daemon/side-channels/status-schema.js';
import { daemonLockName, isLockHeld } from '../../../src/lock/os-lock.js';
import { reply } from '../../support/fake-openai.js';
import { runCli } from '../../support/run-cli-in-process.js';
import { waitFor } from '../../support/wait-for.js';
import { DAEMON_BIN } from '../../daemon/daemon-harness.js';
import { makeChatFixture, type ChatFixture } from './chat-fixture.js';

const DEADLINE = { timeoutMs: 30_000 };
const SKIPPED = 'skipped in the chat (Esc); handed off at the next crossing';

describe('R19 skip means skip: Esc in the chat, then leaving, and the daemon leaves the session alone', {
  timeout: 90_000,
}, () => {
  let chat: ChatFixture;
  let daemonEnv: Record<string, string>;
  const pids = new Set<number>();
  beforeEach(async () => {
    chat = await makeChatFixture({ maxContextTokens: 5000 });
    const runtime = path.join(path.dirname(chat.repo.root), 'run');
    await fs.mkdir(runtime, { recursive: true, mode: 0o700 });
    // No model for the daemon: without the skip it would hand the session over offline (X1).
    daemonEnv = {
      AI_ZEN_HOME: chat.repo.home,
      XDG_RUNTIME_DIR: runtime,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: path.join(chat.repo.home, 'gitconfig'),
      CODEX_HOME: path.join(chat.repo.home, 'codex-home'),
    };
  });
  afterEach(async () => {
    const root = chat.repo.root;
    // stop must end the daemon within its deadline: a failed stop fails the test; the
    // kill below only clears what a failed test left behind.
    const stopped = (await isLockHeld(daemonLockName(root), { env: daemonEnv })) ? await daemon(['stop']) : null;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    pids.clear();
    await chat.dispose();
    if (stopped) expect({ code: stopped.code, stderr: stopped.stderr }).toEqual({ code: 0, stderr: '' });
  });

  const daemon = async (args: readonly string[]) => {
    const result = await runCli(args, { cwd: chat.repo.root, env: daemonEnv, bin: DAEMON_BIN, timeoutMs: 30_000 });
    const pid = /pid\s+(\d+)/.exec(result.stdout)?.[1];
    if (pid) pids.add(Number(pid));
    return result;
  };
  const status = async () => {
    const result = await daemon(['status', '--json']);
    if (result.code !== 0) throw new Error(`status failed (${result.code}): ${result.stderr}`);
    return StatusInfo.parse(JSON.parse(result.stdout));
  };

  it('R19 Esc at the selector writes a skip line; after Ctrl-D a real daemon neither writes a document nor migrates, and status says skipped', async () => {
    chat.fake.enqueue(reply().text('A big answer.').usage({ prompt_tokens: 6000, completion_tokens: 10 }));
    const term = await chat.open();
    await chat.say('go');
    await term.waitForScreen(/Hand off to a fresh session\?/);
    await term.sendKeys('Escape');
    await term.waitForScreen(/Skipped: the history stays as it is/);
    const [id = ''] = await chat.sessionIds();
    const lines = await chat.sessionLines(id);
    expect(lines.slice(-2)).toEqual([
      { type: 'usage', usage: { prompt_tokens: 6000, completion_tokens: 10, total_tokens: 6010 } },
      { type: 'skip', at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), promptTokens: 6000 },
    ]);

    // The person leaves without handing off.
    await term.sendKeys('C-d');
    expect(await term.waitForExit()).toBe(0);

    const started = await daemon(['start']);
    expect(started.code, started.stderr).toBe(0);
    const shown = await waitFor(
      async () => {
        const current = await status();
        const session = current.sessions.find((candidate) => candidate.id === id);
        return session?.action ? session : null;
      },
      { ...DEADLINE, message: 'the daemon to decide about the overflowed session' },
    );
    expect(shown).toMatchObject({ owner: 'none', overflowed: true, closed: false, promptTokens: 6000, action: SKIPPED });
    expect(await chat.handoffDocs()).toEqual([]);
    expect(await chat.sessionIds()).toEqual([id]);
    expect((await chat.sessionLines(id)).map((line) => line.type)).not.toContain('migrated');
    // In words, as a person reads it.
    const text = await daemon(['status']);
    expect(text.stdout).toContain(SKIPPED);
  });
});
