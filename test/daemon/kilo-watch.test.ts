// Kilo Code through the opencode reader. Its CLI (`@kilocode/cli` 7.8.1) does not install from the
// registry here (its platform packages are missing), so the database is one the real opencode 1.x
// client wrote at Kilo's path (`OPENCODE_DB=<data>/kilo/kilo.db`: Kilo runs opencode under its own
// name, schema and all), and the window is in Kilo's config file (`~/.config/kilo/kilo.json`).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { answerTitles, makeOpencodeHome, OPENCODE_MODEL, type OpencodeHome, runOpencode } from '../support/opencode-client.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

describe('Kilo Code sessions, through the opencode reader', { timeout: 180_000 }, () => {
  let fake: FakeOpenAI;
  let daemon: DaemonRepo;
  let opencode: OpencodeHome;

  beforeEach(async () => {
    fake = await startFakeOpenAI();
    answerTitles(fake);
  });
  afterEach(async () => {
    await daemon?.cleanup();
    await fake?.close();
  });

  it('kilo: a session in kilo.db of this repo is listed as Kilo Code’s with its context over the window of Kilo’s config; opencode’s own database is not read as Kilo’s', async () => {
    daemon = await makeDaemonRepo({ config: { agents: { kilo: { graceSeconds: 0 } } } });
    opencode = await makeOpencodeHome(path.dirname(daemon.root), { baseURL: fake.baseURL, context: 200_000 });
    await fs.mkdir(path.join(opencode.configHome, 'kilo'), { recursive: true });
    await fs.copyFile(path.join(opencode.configHome, 'opencode', 'opencode.json'), path.join(opencode.configHome, 'kilo', 'kilo.json'));
    daemon.env.XDG_DATA_HOME = opencode.dataHome;
    daemon.env.XDG_CONFIG_HOME = opencode.configHome;
    await daemon.start();

    const kiloDatabase = path.join(opencode.dataHome, 'kilo', 'kilo.db');
    await fs.mkdir(path.dirname(kiloDatabase), { recursive: true });
    fake.enqueue(reply().text('Looked.').usage({ prompt_tokens: 50_000, completion_tokens: 20 }));
    const run = await runOpencode('look at the files', { cwd: daemon.root, home: opencode, env: { OPENCODE_DB: kiloDatabase } });
    expect(run.code, run.stderr).toBe(0);
    await fs.access(kiloDatabase);

    const listed = await waitFor(
      async () => (await daemon.status()).sessions.find((session) => session.agent === 'kilo' && session.promptTokens === 50_020) ?? null,
      { timeoutMs: 30_000, message: 'the Kilo session listed at 50,020 tokens' },
    );
    expect(listed).toMatchObject({ model: OPENCODE_MODEL, maxContextTokens: 200_000, percent: 25, handoffAt: 70 });
    expect(listed.transcript).toBe(`${kiloDatabase}#${listed.id}`);
    expect((await daemon.daemon(['status'])).stdout).toContain(shortId(listed.id));
    expect((await daemon.status()).sessions.filter((session) => session.agent === 'opencode')).toEqual([]);
  });
});
