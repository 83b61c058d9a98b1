// While the daemon migrates a session it holds that session's lock. `ai-zen -c`,
// `status` and a second IPC `migrate` must say the daemon is migrating it — not send the person
// to "another ai-zen process" that does not exist. The migration is held open by a model request
// the fake server answers only when the test lets it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectPaths } from '../../src/paths.js';
import { SessionStore } from '../../src/session/store.js';
import { httpError, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { runCli } from '../support/run-cli-in-process.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';

const DEADLINE = { timeoutMs: 60_000 };

describe('while the daemon migrates a session', { timeout: 180_000 }, () => {
  let fake: FakeOpenAI;
  let daemon: DaemonRepo;
  let release: () => void;
  beforeEach(async () => {
    fake = await startFakeOpenAI();
    const gate = new Promise<void>((resolve) => (release = resolve));
    // Every model request waits for the gate, then fails: the migration stays running until then.
    fake.handle(async () => {
      await gate;
      return httpError(400, 'released by the test');
    });
    daemon = await makeDaemonRepo({ env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.baseURL, AI_ZEN_MODEL: 'test-model' } });
  });
  afterEach(async () => {
    release();
    await daemon.cleanup();
    await fake.close();
  });

  it('ai-zen -c, status (owner: daemon) and a concurrent IPC migrate each say the daemon is migrating it', async () => {
    const id = sessionId(15);
    await daemon.writeSession(id, { maxContextTokens: 1000 });
    await new SessionStore(projectPaths(daemon.root)).writeLatestPointer({ id, previousId: null });
    const pid = await daemon.start();
    await daemon.appendLines(id, usageLine(5000));
    await waitFor(async () => fake.requests.length > 0, { ...DEADLINE, message: "the daemon's migration to ask the model" });

    const status = await daemon.status();
    expect(status.migration?.sessionId).toBe(id);
    expect(status.sessions.find((session) => session.id === id)?.owner).toBe('daemon');
    const text = await daemon.daemon(['status']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('owner: daemon');
    expect(text.stdout).not.toContain('owner: live');

    const second = await daemon.daemon(['migrate', id]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`session ${id.slice(0, 8)} is being migrated by this daemon right now`);
    expect(second.stderr).not.toContain('another ai-zen process');

    const resumed = await runCli(['-c', '-p', 'carry on'], { cwd: daemon.root, env: daemon.env, timeoutMs: 60_000 });
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain(`session ${id.slice(0, 8)} is being migrated by this repo's ai-zen daemon (pid ${pid}) right now`);
    expect(resumed.stderr).not.toContain('another ai-zen process');
    expect(resumed.stderr).not.toMatch(/\n\s+at /); // one line, no stack trace

    release();
    await waitFor(async () => (await daemon.status()).migration === null, { ...DEADLINE, message: 'the held migration to end' });
    const stop = await daemon.daemon(['stop']);
    expect(stop.code).toBe(0);
  });
});
