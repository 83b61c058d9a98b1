// Issue 22 §8: a session in a repo nested in another (a submodule, a vendored clone) was handed off
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

describe('issue 22 §8 nested repos', { timeout: 120_000 }, () => {
  it('issue 22 §8 a Claude Code session in a vendored repo inside another is handed off once, by the inner repo’s daemon; the outer daemon does not list it', async () => {
    const claude = await makeClaudeHome(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-nested-')));
    const agents = { agents: { 'claude-code': { graceSeconds: 0 } } };
    outer = await makeDaemonRepo({ env: claude.env, config: agents });
    const innerRoot = path.join(outer.root, 'vendor', 'lib');
    inner = innerRoot;
    await fs.mkdir(path.join(innerRoot, '.ai-zen'), { recursive: true });
    await outer.repo.git('init', '-q', innerRoot);
    await fs.writeFile(path.join(innerRoot, '.ai-zen', 'config.json'), JSON.stringify(agents));
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
    const result = await runClaude('Patch the vendored lib', { cwd: innerRoot, home: claude, baseURL: fake.baseURL });
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
    expect(await handoffDocs(innerRoot)).toHaveLength(1);

    // The outer daemon watches the same transcript folder (the slug of a subfolder) and saw it too.
    const outerStatus = await outer.status();
    expect(outerStatus.sessions.filter((session) => session.agent === 'claude-code')).toHaveLength(0);
    expect(await handoffDocs(outer.root)).toHaveLength(0);
  });
});
