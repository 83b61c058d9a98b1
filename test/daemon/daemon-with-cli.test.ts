// End to end: the real `ai-zen -p` (owner of its session, with AutoMigrate) crosses the
// limit while the real daemon watches. The CLI migrates; the daemon only commits and reports —
// they never both migrate one session.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import path from 'node:path';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { runCli } from '../support/run-cli-in-process.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

describe('D1 the CLI and the daemon on one session', { timeout: 90_000 }, () => {
  let fake: FakeOpenAI;
  let daemon: DaemonRepo;
  beforeEach(async () => {
    fake = await startFakeOpenAI();
  });
  afterEach(async () => {
    await daemon?.cleanup();
    await fake.close();
  });

  it('D1 ai-zen -p overflows and migrates its own session; the daemon commits the doc and migrates nothing', async () => {
    const modelEnv = { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'test-key', AI_ZEN_MODEL: 'test-model' };
    daemon = await makeDaemonRepo({ env: modelEnv, config: { maxContextTokens: 1000, executor: 'offline' }, trusted: true });
    await daemon.start();
    fake.enqueue(reply().text('Done.').usage({ prompt_tokens: 1500, completion_tokens: 5 }));

    const run = await runCli(['-p', 'say done'], { cwd: daemon.root, env: daemon.env, timeoutMs: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('Done.\n');
    const docs = await handoffDocs(daemon.root);
    expect(docs).toHaveLength(1);

    const status = await waitFor(
      async () => {
        const current = await daemon.status();
        return current.handoffs[0]?.state === 'committed' ? current : null;
      },
      { timeoutMs: 40_000, message: 'the CLI’s doc committed by the daemon' },
    );
    expect(status.handoffs).toEqual([expect.objectContaining({ path: docs[0], executor: 'offline', mode: 'migrate', state: 'committed' })]);
    expect(status.closedSessions).toBe(1);
    expect(status.sessions).toHaveLength(1);
    expect(await handoffDocs(daemon.root)).toEqual(docs);
    const log = await fs.readFile(path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log'), 'utf8');
    expect(log).not.toContain('daemon handing off a session');
  });
});
