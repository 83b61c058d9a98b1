// The habits users bring from `claude` and `codex`, each driven as a user drives it —
// the built commands spawned as real processes, the chat in a real pseudo-terminal (tmux).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HandoffReply, HandoffsReply } from '../../src/daemon/side-channels/status-schema.js';
import { makeDaemonRepo, sessionId, usageLine } from '../daemon/daemon-harness.js';
import { reply } from '../support/fake-openai.js';
import { freshRepoAndModel } from '../support/repo-and-model.js';
import { CLI_PATH } from '../support/run-cli.js';
import { runCli } from '../support/run-cli-in-process.js';
import { waitFor } from '../support/wait-for.js';
import { makeChatFixture } from './chat/chat-fixture.js';

const DAEMON = path.join(path.dirname(CLI_PATH), 'ai-zen-daemon.js');
const KEY = 'sk-test-habits';

describe('ai-zen "prompt", -v, --json', { timeout: 60_000 }, () => {
  const each = freshRepoAndModel();
  const env = () => ({ AI_ZEN_HOME: each.repo.home, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: each.fake.baseURL, AI_ZEN_MODEL: 'test-model' });
  const cli = (args: string[], bin = CLI_PATH) => runCli(args, { cwd: each.repo.root, env: env(), bin });

  it('-v and --version print the version, the same in ai-zen and ai-zen-daemon', async () => {
    const { version } = JSON.parse(await fs.readFile(path.join(path.dirname(CLI_PATH), '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    for (const bin of [CLI_PATH, DAEMON]) {
      for (const flag of ['-v', '--version']) {
        const result = await cli([flag], bin);
        expect({ bin: path.basename(bin), flag, code: result.code, stdout: result.stdout }).toEqual({
          bin: path.basename(bin),
          flag,
          code: 0,
          stdout: `${version}\n`,
        });
      }
    }
    // `--verbose` keeps its long name; `-v` is no longer taken for it.
    expect((await cli(['--help'])).stdout).toMatch(/-v, --version[\s\S]*\n {2}--verbose/);
  });

  it('ai-zen "prompt" without a terminal runs one turn and prints the answer alone; -p and a prompt together is a usage error', async () => {
    each.fake.enqueue(reply().text('Two files: a.ts and b.ts.'));
    const result = await cli(['list the files']);
    expect(result).toMatchObject({ code: 0, stdout: 'Two files: a.ts and b.ts.\n', stderr: '' });
    expect(each.fake.requests.map((request) => request.lastUserText)).toEqual(['list the files']);

    const both = await cli(['-p', 'one', 'two']);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('ai-zen: give the prompt once: -p "<prompt>" or "<prompt>"\n');
    expect(each.fake.requests).toHaveLength(1);
  });

  it('ai-zen handoff --json and migrate --json --yes print one JSON object: path, executor, session ids, checks', async () => {
    each.fake.enqueue(reply().text('Noted.'));
    expect((await cli(['-p', 'remember the plan'])).code).toBe(0);
    const handoff = await cli(['handoff', '--executor', 'offline', '--json']);
    expect(handoff.stderr).toBe('');
    expect(handoff.code).toBe(0);
    const written = JSON.parse(handoff.stdout) as Record<string, unknown>;
    expect(written).toMatchObject({ mode: 'handoff', executor: 'offline', newSessionId: null, downgrades: [], cancelled: false });
    expect(written.path).toMatch(/^\.ai-zen\/handoffs\/.+\.md$/);
    expect(written.checks).toBeTypeOf('object');

    const migrate = await cli(['migrate', '--executor', 'offline', '--yes', '--json']);
    expect(migrate.stderr).toBe('');
    expect(migrate.code).toBe(0);
    const migrated = JSON.parse(migrate.stdout) as Record<string, unknown>;
    expect(migrated).toMatchObject({ mode: 'migrate', executor: 'offline', sessionId: written.sessionId });
    expect(migrated.newSessionId).toMatch(/\S/);
    expect(migrated.newSessionId).not.toBe(written.sessionId);
  });
});

describe('ai-zen "prompt" in a terminal', { timeout: 60_000 }, () => {
  it('ai-zen "prompt" in a terminal is the chat, with the prompt as its first message, then waits for the next', async () => {
    const chat = await makeChatFixture();
    try {
      chat.fake.enqueue(reply().text('The plan is written down.'), reply().text('And the second one too.'));
      const term = await chat.open(['write the plan down'], { waitForPrompt: false });
      const screen = await term.waitForScreen(/The plan is written down\.\n› ?\n── /);
      expect(screen).toContain('› write the plan down');
      expect(chat.fake.requests.map((request) => request.lastUserText)).toEqual(['write the plan down']);
      await chat.say('and the second');
      await term.waitForScreen(/And the second one too\.\n› ?\n── /);
      expect(chat.fake.requests.map((request) => request.lastUserText)).toEqual(['write the plan down', 'and the second']);
    } finally {
      await chat.dispose();
    }
  });
});

describe('ai-zen-daemon status --json, handoff/migrate --json, handoffs order', { timeout: 90_000 }, () => {
  it('status --json says {"running": false} (exit 1) with no daemon and "running": true with one; daemon handoff and migrate --json; handoffs lists oldest first in text and JSON alike', async () => {
    const daemon = await makeDaemonRepo();
    try {
      const none = await daemon.daemon(['status', '--json']);
      expect(none.code).toBe(1);
      expect(JSON.parse(none.stdout)).toMatchObject({ running: false, repo: daemon.root });
      expect(none.stderr).toMatch(/no daemon is running/);

      await daemon.start();
      const running = await daemon.daemon(['status', '--json']);
      expect(running.code).toBe(0);
      expect(JSON.parse(running.stdout)).toMatchObject({ running: true, repo: daemon.root });

      const id = sessionId(21);
      await daemon.writeSession(id, { maxContextTokens: 100_000 });
      await daemon.appendLines(id, usageLine(40_000));
      await fs.writeFile(path.join(daemon.root, '.ai-zen', 'latest-session.json'), `${JSON.stringify({ id, previousId: null })}\n`);
      await waitFor(async () => (await daemon.status()).sessions.some((session) => session.id === id), {
        message: 'the daemon to see the session',
      });

      const first = HandoffReply.parse(JSON.parse((await daemon.daemon(['handoff', id, '--json'])).stdout));
      const second = HandoffReply.parse(JSON.parse((await daemon.daemon(['migrate', id, '--json'])).stdout));
      expect(first).toMatchObject({ mode: 'handoff', sessionId: id, newSessionId: null });
      expect(second).toMatchObject({ mode: 'migrate', sessionId: id });
      expect(second.newSessionId).toMatch(/\S/);

      const listed = await waitFor(
        async () => {
          const reply = HandoffsReply.parse(JSON.parse((await daemon.daemon(['handoffs', '--json'])).stdout));
          return reply.handoffs.length === 2 ? reply.handoffs : null;
        },
        { message: 'both handoffs listed' },
      );
      expect(listed.map((entry) => entry.path)).toEqual([first.path, second.path]);
      const text = (await daemon.daemon(['handoffs'])).stdout;
      const textOrder = text
        .trim()
        .split('\n')
        .map((line) => line.split('  ')[0]);
      expect(textOrder).toEqual([first.path, second.path]);
    } finally {
      await daemon.cleanup();
    }
  });
});
