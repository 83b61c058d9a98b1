// Kilo Code through the opencode reader, with the real Kilo CLI (7.7.9, offline against the fake
// OpenAI server, a temp HOME): Kilo keeps a turn where opencode 1.x does — its `message` rows (an
// assistant's `tokens`) and their `part`s — in `<data>/kilo/kilo.db`, and the window is in Kilo's
// own config (`~/.config/kilo/kilo.json`). What Kilo counts is read back from Kilo (`kilo export`).
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { answerTitles, KILO_BIN, KILO_MODEL, KILO_TEST_MS, type KiloHome, kiloEnv, makeKiloHome, runKilo } from '../support/kilo-client.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

interface Exported {
  readonly info: { readonly id: string; readonly directory: string };
  readonly messages: { readonly info: { role: string; tokens?: { input: number; output: number } } }[];
}

/** `kilo export <id>`: the session as Kilo itself reads it back. */
function exportSession(home: KiloHome, cwd: string, id: string): Promise<Exported> {
  return new Promise((resolve, reject) => {
    const child = spawn(KILO_BIN, ['export', id], { cwd, env: kiloEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve(JSON.parse(out.slice(out.indexOf('{'))) as Exported);
      } catch (error) {
        reject(new Error(`kilo export printed no JSON: ${out.slice(0, 500)}`, { cause: error }));
      }
    });
  });
}

describe('Kilo Code sessions, with the real client', { timeout: KILO_TEST_MS }, () => {
  let fake: FakeOpenAI;
  let daemon: DaemonRepo;
  let kilo: KiloHome;

  beforeEach(async () => {
    fake = await startFakeOpenAI();
    answerTitles(fake);
  });
  afterEach(async () => {
    await daemon?.cleanup();
    await fake?.close();
  });

  it('kilo: a session in kilo.db of this repo is listed as Kilo Code’s with its context over the window of Kilo’s config; another folder’s session is not, nor is any listed as opencode’s', async () => {
    daemon = await makeDaemonRepo({ config: { agents: { kilo: { graceSeconds: 0 } } } });
    kilo = await makeKiloHome(path.dirname(daemon.root), { baseURL: fake.baseURL, context: 200_000 });
    // The daemon and the client share Kilo's folders (the harness gives the daemon empty ones).
    daemon.env.XDG_DATA_HOME = kilo.dataHome;
    daemon.env.XDG_CONFIG_HOME = kilo.configHome;
    await daemon.start();

    const other = `${daemon.root}-other`;
    await fs.mkdir(other);
    fake.enqueue(reply().text('other folder').usage({ prompt_tokens: 150_000, completion_tokens: 10 }));
    expect((await runKilo('work elsewhere', { cwd: other, home: kilo })).code).toBe(0);

    fake.enqueue(
      reply().tool('bash', { command: 'ls', description: 'list' }).usage({ prompt_tokens: 5_000, completion_tokens: 20 }),
      reply().text('Looked.').usage({ prompt_tokens: 50_000, completion_tokens: 20 }),
    );
    const run = await runKilo('look at the files', { cwd: daemon.root, home: kilo });
    expect(run.code, run.stderr).toBe(0);
    expect(kilo.database).toBe(path.join(kilo.dataHome, 'kilo', 'kilo.db'));

    const listed = await waitFor(
      async () => (await daemon.status()).sessions.find((session) => session.agent === 'kilo' && session.promptTokens === 50_020) ?? null,
      { timeoutMs: 30_000, message: 'the Kilo session listed at 50,020 tokens' },
    );
    const exported = await exportSession(kilo, daemon.root, listed.id);
    expect(exported.info.directory).toBe(daemon.root);
    const last = exported.messages.filter((message) => message.info.role === 'assistant').at(-1)!.info.tokens!;
    expect(last.input + last.output).toBe(50_020);
    expect(listed).toMatchObject({ model: KILO_MODEL, maxContextTokens: 200_000, percent: 25, handoffAt: 70, overflowed: false });
    expect(listed.transcript).toBe(`${kilo.database}#${listed.id}`);
    expect((await daemon.daemon(['status'])).stdout).toContain(shortId(listed.id));
    const sessions = (await daemon.status()).sessions;
    expect(sessions.filter((session) => session.agent === 'kilo')).toHaveLength(1);
    expect(sessions.filter((session) => session.agent === 'opencode')).toEqual([]);
    expect(await handoffDocs(daemon.root)).toEqual([]);
  });
});
