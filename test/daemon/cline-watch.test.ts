// With the real Cline CLI (3.0.65) driven offline against the fake OpenAI server, in a temp repo and a
// temp CLINE_DIR, while a real daemon watches: the session files it reads are the ones Cline itself
// wrote. What Cline itself counts is read from Cline: its `--json` run result's usage (the last
// request's inputTokens is what it compacts by).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { authenticateCline, type ClineHome, listClineSessions, makeClineHome, runCline, stopHub } from '../support/cline-client.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { waitFor } from '../support/wait-for.js';
import { type DaemonRepo, handoffDocs, makeDaemonRepo } from './daemon-harness.js';

const MODEL = 'gpt-4.1';

describe('Cline CLI sessions, with the real client', { timeout: 180_000 }, () => {
  let fake: FakeOpenAI;
  let daemon: DaemonRepo;
  let cline: ClineHome;

  beforeEach(async () => {
    fake = await startFakeOpenAI();
  });
  afterEach(async (context) => {
    if (process.env.X3_DEBUG && context.task.result?.state === 'fail') {
      console.log(JSON.stringify(await daemon.status().catch(() => null), null, 1));
      console.log(await fs.readFile(path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log'), 'utf8').catch(() => 'no log'));
    }
    if (cline) await stopHub(cline);
    await daemon?.cleanup();
    await fake?.close();
  });

  const run = (prompt: string, cwd: string) => runCline(['--json', prompt], { cwd, home: cline });
  /** The usage of the last request of Cline's run, as its own `run_result` line reports it. */
  const lastRequestOf = (stdout: string) => {
    const done = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { type?: string; event?: { type?: string; usage?: { inputTokens: number } } })
      .filter((line) => line.type === 'agent_event' && line.event?.type === 'done');
    return done.at(-1)?.event?.usage;
  };

  it('cline: a session in this repo is listed (status, status --json, sessions over IPC) with the context Cline counts over the window it runs the model by; a session of another repo is not listed', async () => {
    daemon = await makeDaemonRepo({ config: { agents: { cline: { graceSeconds: 0 } } } });
    cline = await makeClineHome(path.dirname(daemon.root));
    // The daemon and the client share Cline's folder (the harness gives the daemon an empty one).
    daemon.env.CLINE_DIR = cline.dir;
    await daemon.start();
    await authenticateCline(cline, daemon.root, fake.baseURL, MODEL);

    const other = `${daemon.root}-other`;
    await fs.mkdir(other);
    fake.enqueue(reply().text('other repo').usage({ prompt_tokens: 120_000, completion_tokens: 10 }));
    expect((await run('work elsewhere', other)).code).toBe(0);
    fake.enqueue(reply().text('Looked at it.').usage({ prompt_tokens: 64_000, completion_tokens: 50 }));
    const ours = await run('look at the files', daemon.root);
    expect(ours.code, ours.stderr).toBe(0);
    // Cline's own count: one request of 64,000 input tokens.
    expect(lastRequestOf(ours.stdout)).toMatchObject({ inputTokens: 64_000, outputTokens: 50 });

    const [elsewhere, file] = await listClineSessions(cline);
    const id = path.basename(path.dirname(file!));
    const session = await waitFor(
      async () => (await daemon.status()).sessions.find((listed) => listed.transcript === file && listed.promptTokens === 64_000),
      { timeoutMs: 30_000, message: 'the Cline session listed at 64,000 tokens' },
    );
    expect(session).toMatchObject({
      agent: 'cline',
      id,
      model: MODEL,
      promptTokens: 64_000,
      maxContextTokens: 128_000,
      percent: 50,
      handoffAt: 70,
      compactsAt: 90,
      overflowed: false,
    });
    const status = await daemon.status();
    expect(status.sessions.filter((listed) => listed.agent === 'cline')).toHaveLength(1);
    expect(status.sessions.some((listed) => listed.transcript === elsewhere)).toBe(false);
    expect((await daemon.daemon(['status'])).stdout).toContain(shortId(id));
    const client = await daemon.connect();
    const overIpc = await client.request<{ sessions: { agent?: string; promptTokens: number | null }[] }>('sessions');
    expect(overIpc.sessions.filter((listed) => listed.agent === 'cline').map((listed) => listed.promptTokens)).toEqual([64_000]);
    expect(await handoffDocs(daemon.root)).toEqual([]);
  });
});
