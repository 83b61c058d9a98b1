// With the real clients: in a repo enabled by `ai-zen-daemon enable`, with ai-zen's hooks
// installed as a user installs them, a real Claude Code session (`claude -p`) and a real Codex
// session (`codex exec`) bring the repo's daemon up, detached, and `ai-zen-daemon ls` lists it.
// The agent is not held up by it: the daemon is held at a test gate (AI_ZEN_TEST_START_GATE, a FIFO)
// until the agent has answered — an agent whose hook waited for the daemon could never answer.
import { execFile } from 'node:child_process';
import { constants, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { makeClaudeHome, runClaude } from '../support/claude-client.js';
import { CODEX_BIN, codexExec, makeCodexHome } from '../support/codex-client.js';
import { anthropicReply, startFakeAnthropic } from '../support/fake-anthropic.js';
import { responsesReply, startFakeResponses } from '../support/fake-responses.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from '../daemon/daemon-harness.js';

const run = promisify(execFile);

/** Lets a daemon held at the gate go on; nothing when none waits there. */
async function openGate(gate: string): Promise<void> {
  const writer = await fs.open(gate, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => null);
  await writer?.close();
}

describe('enable, with the real Claude Code and Codex clients', { timeout: 240_000 }, () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  });

  /** An enabled repo whose daemon, once launched, waits at the gate. */
  async function enabledRepo(extraEnv: Record<string, string>): Promise<{ repo: DaemonRepo; gate: string }> {
    const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-enable-')));
    const gate = path.join(base, 'start-gate');
    await run('mkfifo', [gate]);
    const repo = await makeDaemonRepo({ env: { AI_ZEN_TEST_START_GATE: gate, ...extraEnv } });
    cleanups.push(async () => {
      await openGate(gate);
      await repo.daemon(['stop']);
      await repo.cleanup();
      await fs.rm(base, { recursive: true, force: true });
    });
    const enabled = await repo.daemon(['enable']);
    expect(enabled.code, enabled.stderr).toBe(0);
    return { repo, gate };
  }

  /** `ls --json` from elsewhere: the repos whose daemons answer. */
  async function listed(repo: DaemonRepo): Promise<string[]> {
    const ls = await repo.daemon(['ls', '--json'], { cwd: os.tmpdir() });
    expect(ls.code, ls.stderr).toBe(0);
    return (JSON.parse(ls.stdout) as { daemons: { repo: string }[] }).daemons.map((entry) => entry.repo);
  }

  /** The agent has answered; the daemon it launched is starting (its lock held) but not ready; then it comes up. */
  async function daemonCameUpAfterTheAnswer(repo: DaemonRepo, gate: string): Promise<void> {
    await waitFor(() => repo.running(), { timeoutMs: 30_000, message: 'the daemon launched by the SessionStart hook' });
    expect(await listed(repo)).toEqual([]);
    await fs.writeFile(gate, 'go');
    const up = await waitFor(async () => ((await listed(repo)).includes(repo.root) ? true : null), {
      timeoutMs: 60_000,
      message: 'ai-zen-daemon ls listing the daemon',
    });
    expect(up).toBe(true);
    // Detached: it outlived the agent that started it, and answers status as any daemon does.
    expect((await repo.status()).repo).toBe(repo.root);
  }

  it('a real Claude Code session (claude -p) in an enabled repo brings its daemon up, detached; Claude answers before the daemon is ready; ls lists it', async () => {
    const fake = await startFakeAnthropic();
    cleanups.push(() => fake.close());
    const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-claude-')));
    cleanups.push(() => fs.rm(base, { recursive: true, force: true }));
    const claude = await makeClaudeHome(base);
    const { repo, gate } = await enabledRepo({ ...claude.env, HOME: claude.home });
    const installed = await repo.daemon(['install-hooks', 'claude']);
    expect(installed.code, installed.stderr).toBe(0);

    fake.enqueue(anthropicReply().text('Hello from Claude.').usage({ input_tokens: 1000, output_tokens: 10 }));
    const answer = await runClaude('Say hello.', {
      cwd: repo.root,
      home: claude,
      baseURL: fake.baseURL,
      env: repo.env,
      timeoutMs: 120_000,
    });
    expect(answer.code, answer.stderr).toBe(0);
    expect(answer.stdout).toContain('Hello from Claude.');
    // Claude Code's SessionStart brought it up; the repo was not told it is unprotected.
    expect(JSON.stringify(fake.requests)).not.toContain('NOT protected');
    await daemonCameUpAfterTheAnswer(repo, gate);
  });

  it('a real Codex session (codex exec) in an enabled repo brings its daemon up, detached; Codex answers before the daemon is ready; ls lists it', async () => {
    const fake = await startFakeResponses();
    cleanups.push(() => fake.close());
    const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-codex-')));
    cleanups.push(() => fs.rm(base, { recursive: true, force: true }));
    const codex = await makeCodexHome(base, { baseURL: fake.baseURL });
    const { repo, gate } = await enabledRepo({ CODEX_HOME: codex.codexHome, AI_ZEN_CODEX_BIN: CODEX_BIN });
    const installed = await repo.daemon(['install-hooks', 'codex', '--trust'], { timeoutMs: 90_000 });
    expect(installed.code, installed.stderr).toBe(0);

    fake.enqueue(responsesReply().text('Hello from Codex.').usage({ input_tokens: 1000, output_tokens: 10 }));
    const answer = await codexExec('Say hello.', {
      cwd: repo.root,
      home: codex,
      env: {
        AI_ZEN_HOME: repo.env.AI_ZEN_HOME!,
        XDG_RUNTIME_DIR: repo.env.XDG_RUNTIME_DIR!,
        AI_ZEN_TEST_START_GATE: gate,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: repo.env.GIT_CONFIG_GLOBAL!,
      },
      timeoutMs: 120_000,
    });
    expect(answer.code, answer.stderr).toBe(0);
    expect(answer.stdout).toContain('Hello from Codex.');
    expect(answer.stderr).not.toContain('NOT protected');
    await daemonCameUpAfterTheAnswer(repo, gate);
  });
});
