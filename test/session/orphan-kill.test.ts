// Kill -9 of the CLI in the middle of a migration left orphan documents (written,
// never named by a `handoff` line, never scanned) and orphan successor sessions (written, never
// pointed to by a `migrated` line) for good. Here the real CLI is killed at each step of
// `ai-zen migrate`, in a loop over one project, and the next start — the CLI or the daemon, in
// turn — leaves no orphan of either kind, and the old session whole. The daemon's own kills:
// test/daemon/orphan-kill-daemon.test.ts.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HANDOFF_STAGES, MIGRATION_STAGES } from '../../src/session/pause-hook.js';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { CLI_PATH, runCli } from '../support/run-cli.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from '../daemon/daemon-harness.js';
import { orphans } from './orphans.js';

// Once through every step by default (CI's budget); AI_ZEN_ORPHAN_CLI_ROUNDS=3 for 18 kills.
const ROUNDS = Number(process.env.AI_ZEN_ORPHAN_CLI_ROUNDS ?? 1);

let daemon: DaemonRepo | null = null;
let fake: FakeOpenAI | null = null;
afterEach(async () => {
  await daemon?.cleanup();
  daemon = null;
  await fake?.close();
  fake = null;
});

describe('kill -9 mid-migration leaves no orphan for good', () => {
  it(`kill -9 of the CLI at each step of a migration (document written, each write of the migration), ${ROUNDS} times over: the next start, CLI or daemon, leaves no orphan document nor orphan successor session, and no history is lost`, async () => {
    fake = await startFakeOpenAI();
    daemon = await makeDaemonRepo({ env: { OPENAI_API_KEY: 'sk-test-orphans', OPENAI_BASE_URL: fake.baseURL }, commandsAsProcesses: true });
    const { root, env } = daemon;
    const cli = (args: string[]) => runCli(args, { cwd: root, env, timeoutMs: 40_000 });
    fake.enqueue(reply().text('Started.'));
    expect((await cli(['-p', 'start the work'])).code).toBe(0);
    const pauseFile = path.join(root, '..', 'paused-at');
    let cleanedBy = 0;

    const stages = [...HANDOFF_STAGES, ...MIGRATION_STAGES];
    // Every step, ROUNDS times over.
    for (const [index, stage] of Array.from({ length: ROUNDS * stages.length }, (_, n) => stages[n % stages.length]!).entries()) {
      await fs.rm(pauseFile, { force: true });
      const child = spawn(process.execPath, [CLI_PATH, 'migrate', '--yes', '--executor', 'offline'], {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: env.AI_ZEN_HOME!,
          ...env,
          AI_ZEN_TEST_PAUSE_AT: stage,
          AI_ZEN_TEST_PAUSE_FILE: pauseFile,
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (data: string) => (stderr += data));
      const gone = new Promise((resolve) => child.on('close', resolve));
      await waitFor(async () => (await fs.readFile(pauseFile, 'utf8').catch(() => '')) === stage, {
        timeoutMs: 30_000,
        message: `the migration to pause at ${stage} (${stderr})`,
      });
      child.kill('SIGKILL');
      await gone;
      const left = await orphans(root);
      // Only the steps between the document and the `migrated` line leave an orphan behind.
      if (left.documents.length > 0 || left.successors.length > 0) cleanedBy += 1;

      // The next start: the CLI and the daemon in turn.
      if (index % 2 === 0) {
        fake.enqueue(reply().text('Carrying on.'));
        const next = await cli(['--continue', '-p', `carry on after ${stage}`]);
        expect(next.code, next.stderr).toBe(0);
        expect(next.stdout).toContain('Carrying on.');
      } else {
        await daemon.start();
        expect((await daemon.daemon(['stop'])).code).toBe(0);
      }
      expect(await orphans(root), `after a kill at ${stage}`).toEqual({ documents: [], successors: [] });
    }
    // The kills did leave orphans (at the document, and after the new session was written).
    expect(cleanedBy).toBeGreaterThanOrEqual(2);

    // No history lost: every request the user made is still in the sessions.
    const all = (
      await Promise.all(
        (
          await fs.readdir(path.join(root, '.ai-zen', 'sessions'))
        ).map((name) => fs.readFile(path.join(root, '.ai-zen', 'sessions', name), 'utf8')),
      )
    ).join('\n');
    expect(all).toContain('start the work');
    for (const stage of [HANDOFF_STAGES[0], MIGRATION_STAGES[1], MIGRATION_STAGES[3]]) expect(all).toContain(`carry on after ${stage}`);
  }, 1_200_000);
});
