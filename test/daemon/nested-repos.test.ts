// A session in a repo nested in another (a submodule, a vendored clone) was handed off
// by both daemons. Only the innermost repo's daemon may act; the outer one does not even list it.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { makeClaudeHome, runClaude } from '../support/claude-client.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';
import { StatusInfo } from '../../src/daemon/side-channels/status-schema.js';

let fake: FakeAnthropic;
let outer: DaemonRepo | null = null;
let inner: string | null = null;

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
});
afterEach(async () => {
  if (outer && inner) await outer.daemon(['stop'], { cwd: inner });
  await outer?.cleanup();
  outer = null;
  inner = null;
});

describe('nested repos', { timeout: 120_000 }, () => {
  it('a Claude Code session in a vendored repo inside another is handed off once, by the inner repo’s daemon; the outer daemon lists neither it nor a Codex session there', async () => {
    const claude = await makeClaudeHome(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-nested-')));
    const agents = { agents: { 'claude-code': { graceSeconds: 0 } } };
    outer = await makeDaemonRepo({ env: claude.env, config: agents });
    const innerRoot = path.join(outer.root, 'vendor', 'lib');
    inner = innerRoot;
    await fs.mkdir(path.join(innerRoot, '.ai-zen'), { recursive: true });
    await outer.repo.git('init', '-q', innerRoot);
    await fs.writeFile(path.join(innerRoot, '.ai-zen', 'config.json'), JSON.stringify(agents));
    // A Codex session of the inner repo too (its rollout's session_meta names the cwd).
    const rolloutId = '00000000-0000-4000-8000-000000000022';
    const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
    const rollout = path.join(outer.env.CODEX_HOME!, 'sessions', day, `rollout-2026-01-01T00-00-00-${rolloutId}.jsonl`);
    await fs.mkdir(path.dirname(rollout), { recursive: true });
    const usage = { input_tokens: 20_000, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0, total_tokens: 20_000 };
    const rolloutLines = [
      { timestamp: new Date().toISOString(), type: 'session_meta', payload: { id: rolloutId, cwd: innerRoot } },
      {
        timestamp: new Date().toISOString(),
        type: 'event_msg',
        payload: { type: 'token_count', info: { last_token_usage: usage, model_context_window: 258_400 } },
      },
    ];
    await fs.writeFile(rollout, rolloutLines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    await outer.start();
    const innerStart = await outer.daemon(['start'], { cwd: innerRoot });
    expect(innerStart.code, innerStart.stderr).toBe(0);
    expect(innerStart.stdout).toContain(`started for ${innerRoot}`);

    // Seen under the threshold first, then crossing it (a session first seen over it waits longer).
    fake.enqueue(
      anthropicReply().tool('Bash', { command: 'true' }).usage({ input_tokens: 30_000, output_tokens: 20 }),
      anthropicReply().tool('Bash', { command: 'ls' }).usage({ input_tokens: 60_000, output_tokens: 20 }),
      anthropicReply().text('Vendored lib patched.').usage({ input_tokens: 150_000, output_tokens: 40 }),
    );
    // A 200k model: 150k crosses 70% (the default claude-opus-5-5 has 1M).
    const result = await runClaude('Patch the vendored lib', {
      cwd: innerRoot,
      home: claude,
      baseURL: fake.baseURL,
      args: ['--model', 'claude-sonnet-4-6'],
    });
    expect(result.code, result.stderr).toBe(0);

    const innerStatus = async () => {
      const status = await outer!.daemon(['status', '--json'], { cwd: innerRoot });
      return StatusInfo.parse(JSON.parse(status.stdout));
    };
    await waitFor(async () => (await innerStatus()).handoffs.some((handoff) => handoff.agent === 'claude-code'), {
      timeoutMs: 40_000,
      message: 'the inner daemon to hand the session off',
    }).catch(async (error) => {
      console.log(await fs.readFile(path.join(innerRoot, '.ai-zen', 'logs', 'daemon.log'), 'utf8').catch(() => 'no log'));
      throw error;
    });
    expect((await innerStatus()).sessions.filter((session) => session.agent === 'claude-code')).toHaveLength(1);
    await waitFor(async () => (await innerStatus()).sessions.some((session) => session.agent === 'codex'), {
      timeoutMs: 20_000,
      message: 'the inner daemon to list the Codex session',
    });
    expect(await handoffDocs(innerRoot)).toHaveLength(1);

    // The outer daemon watches the same transcript folder (the slug of a subfolder) and saw it too.
    const outerStatus = await outer.status();
    expect(outerStatus.sessions.filter((session) => session.agent === 'claude-code' || session.agent === 'codex')).toHaveLength(0);
    expect(await handoffDocs(outer.root)).toHaveLength(0);
  });
});
