// With the real opencode (1.x) driven offline against the fake OpenAI server, in a temp repo and a
// temp HOME, while a real daemon watches: the rows it reads are the ones opencode itself wrote in its
// database. What opencode counts is read back from opencode: `opencode export` prints the session's
// messages as opencode keeps them, and its context gauge is their last reply's tokens summed.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import {
  answerTitles,
  makeOpencodeHome,
  OPENCODE_BIN,
  OPENCODE_MODEL,
  type OpencodeHome,
  opencodeEnv,
  runOpencode,
} from '../support/opencode-client.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

interface Exported {
  readonly info: { readonly id: string; readonly directory: string };
  readonly messages: {
    readonly info: { role: string; tokens?: { input: number; output: number; reasoning: number; cache: { read: number; write: number } } };
  }[];
}

/** `opencode export <id>`: the session as opencode itself reads it back. */
function exportSession(home: OpencodeHome, cwd: string, id: string): Promise<Exported> {
  return new Promise((resolve, reject) => {
    const child = spawn(OPENCODE_BIN, ['export', id], { cwd, env: opencodeEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve(JSON.parse(out.slice(out.indexOf('{'))) as Exported);
      } catch (error) {
        reject(new Error(`opencode export printed no JSON: ${out.slice(0, 500)}`, { cause: error }));
      }
    });
  });
}

/** opencode's context gauge: the last reply's tokens, all of them. */
function gauge(exported: Exported): number {
  const last = exported.messages.filter((message) => message.info.role === 'assistant' && message.info.tokens).at(-1)!.info.tokens!;
  return last.input + last.output + last.reasoning + last.cache.read + last.cache.write;
}

describe('opencode sessions, with the real client', { timeout: 180_000 }, () => {
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

  it("opencode: a session of this repo is listed (status, status --json) with the context opencode counts over its provider config's window; another repo's session (its path shares the prefix) is not", async () => {
    daemon = await makeDaemonRepo({ config: { agents: { opencode: { graceSeconds: 0 } } } });
    opencode = await makeOpencodeHome(path.dirname(daemon.root), { baseURL: fake.baseURL, context: 100_000 });
    // The daemon and the client share opencode's folders (the harness gives the daemon empty ones).
    daemon.env.XDG_DATA_HOME = opencode.dataHome;
    daemon.env.XDG_CONFIG_HOME = opencode.configHome;
    await daemon.start();

    const other = `${daemon.root}-other`;
    await fs.mkdir(other);
    fake.enqueue(reply().text('other repo').usage({ prompt_tokens: 90_000, completion_tokens: 10 }));
    expect((await runOpencode('work elsewhere', { cwd: other, home: opencode })).code).toBe(0);

    // A tool call, then the answer: 50,000 prompt + 20 output of the 100k window.
    fake.enqueue(
      reply().tool('bash', { command: 'ls', description: 'list' }).usage({ prompt_tokens: 5_000, completion_tokens: 20 }),
      reply().text('Looked at it.').usage({ prompt_tokens: 50_000, completion_tokens: 20 }),
    );
    const run = await runOpencode('look at the files', { cwd: daemon.root, home: opencode });
    expect(run.code, run.stderr).toBe(0);

    const listed = await waitFor(
      async () =>
        (await daemon.status()).sessions.find((session) => session.agent === 'opencode' && session.promptTokens === 50_020) ?? null,
      { timeoutMs: 30_000, message: 'the opencode session listed at 50,020 tokens' },
    );
    const exported = await exportSession(opencode, daemon.root, listed.id);
    expect(exported.info.directory).toBe(daemon.root);
    expect(gauge(exported)).toBe(50_020);
    expect(listed).toMatchObject({
      agent: 'opencode',
      model: OPENCODE_MODEL,
      promptTokens: 50_020,
      maxContextTokens: 100_000,
      percent: 50,
      handoffAt: 70,
      overflowed: false,
    });
    expect(listed.transcript).toBe(`${opencode.database}#${listed.id}`);
    const status = await daemon.status();
    expect(status.sessions.filter((session) => session.agent === 'opencode')).toHaveLength(1);
    const text = (await daemon.daemon(['status'])).stdout;
    expect(text).toContain(shortId(listed.id));
    expect(await handoffDocs(daemon.root)).toEqual([]);
  });
});
