// With the real opencode (1.18.33) and the real Kilo Code CLI (7.7.9, opencode under its own name),
// one body for both, driven offline against the fake OpenAI server, in a temp repo and a temp HOME,
// while a real daemon watches: the rows it reads are the ones the client itself wrote in its database
// (`<data>/<app>/<app>.db`; Kilo keeps a turn where opencode 1.x does), the window is in the client's
// own config (`~/.config/<app>/<app>.json`). What the client counts is read back from it: `<app>
// export` prints the session's messages as it keeps them, and its context gauge is their last reply's
// tokens summed.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { KILO } from '../support/kilo-client.js';
import { OPENCODE } from '../support/opencode-client.js';
import { answerTitles, clientEnv, FAKE_MODEL, type OpencodeHome, runClient } from '../support/opencode-like-client.js';
import { waitFor } from '../support/wait-for.js';
import { type DaemonRepo, handoffDocs } from './daemon-harness.js';
import { makeOpencodeLikeRepo } from './opencode-like-repo.js';

interface Exported {
  readonly info: { readonly id: string; readonly directory: string };
  readonly messages: {
    readonly info: { role: string; tokens?: { input: number; output: number; reasoning: number; cache: { read: number; write: number } } };
  }[];
}

/** `<app> export <id>`: the session as the client itself reads it back. */
function exportSession(home: OpencodeHome, cwd: string, id: string): Promise<Exported> {
  return new Promise((resolve, reject) => {
    const child = spawn(home.client.bin, ['export', id], { cwd, env: clientEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve(JSON.parse(out.slice(out.indexOf('{'))) as Exported);
      } catch (error) {
        reject(new Error(`${home.client.app} export printed no JSON: ${out.slice(0, 500)}`, { cause: error }));
      }
    });
  });
}

/** The last reply's tokens, as the client keeps them. */
function lastReplyTokens(exported: Exported) {
  return exported.messages.filter((message) => message.info.role === 'assistant' && message.info.tokens).at(-1)!.info.tokens!;
}

/** The client's context gauge: the last reply's tokens, all of them. */
function gauge(exported: Exported): number {
  const last = lastReplyTokens(exported);
  return last.input + last.output + last.reasoning + last.cache.read + last.cache.write;
}

/**
 * Each client's window, and the prompt of another folder's session: over the threshold of that window,
 * so that it would be handed off were it listed as this repo's.
 */
const WINDOWS = {
  opencode: { context: 100_000, otherPromptTokens: 90_000, percent: 50 },
  kilo: { context: 200_000, otherPromptTokens: 150_000, percent: 25 },
} as const;

for (const client of [OPENCODE, KILO]) {
  const { app, name } = client;
  const window = WINDOWS[app];
  const other = app === 'opencode' ? KILO : OPENCODE;

  describe(`${name} sessions, with the real client`, { timeout: client.testTimeoutMs }, () => {
    let fake: FakeOpenAI;
    let daemon: DaemonRepo;
    let home: OpencodeHome;

    beforeEach(async () => {
      fake = await startFakeOpenAI();
      answerTitles(fake);
    });
    afterEach(async () => {
      await daemon?.cleanup();
      await fake?.close();
    });

    it(`${app}: a session in ${app}.db of this repo is listed (status, status --json) as ${name}’s with the context ${name} counts over the window of its config; another repo’s session (its path shares the prefix) is not, nor is any listed as ${other.name}’s`, async () => {
      ({ daemon, home } = await makeOpencodeLikeRepo(client, { baseURL: fake.baseURL, context: window.context, graceSeconds: 0 }));
      await daemon.start();

      const otherRepo = `${daemon.root}-other`;
      await fs.mkdir(otherRepo);
      fake.enqueue(reply().text('other repo').usage({ prompt_tokens: window.otherPromptTokens, completion_tokens: 10 }));
      expect((await runClient('work elsewhere', { cwd: otherRepo, home })).code).toBe(0);

      // A tool call, then the answer: 50,000 prompt + 20 output.
      fake.enqueue(
        reply().tool('bash', { command: 'ls', description: 'list' }).usage({ prompt_tokens: 5_000, completion_tokens: 20 }),
        reply().text('Looked at it.').usage({ prompt_tokens: 50_000, completion_tokens: 20 }),
      );
      const run = await runClient('look at the files', { cwd: daemon.root, home });
      expect(run.code, run.stderr).toBe(0);
      expect(home.database).toBe(path.join(home.dataHome, app, `${app}.db`));

      const listed = await waitFor(
        async () => (await daemon.status()).sessions.find((session) => session.agent === app && session.promptTokens === 50_020) ?? null,
        { timeoutMs: 30_000, message: `the ${name} session listed at 50,020 tokens` },
      );
      const exported = await exportSession(home, daemon.root, listed.id);
      expect(exported.info.directory).toBe(daemon.root);
      const last = lastReplyTokens(exported);
      expect(last.input + last.output).toBe(50_020);
      expect(gauge(exported)).toBe(50_020);
      expect(listed).toMatchObject({
        agent: app,
        model: FAKE_MODEL,
        promptTokens: 50_020,
        maxContextTokens: window.context,
        percent: window.percent,
        handoffAt: 70,
        overflowed: false,
      });
      expect(listed.transcript).toBe(`${home.database}#${listed.id}`);
      expect((await daemon.daemon(['status'])).stdout).toContain(shortId(listed.id));
      const sessions = (await daemon.status()).sessions;
      expect(sessions.filter((session) => session.agent === app)).toHaveLength(1);
      expect(sessions.filter((session) => session.agent === other.app)).toEqual([]);
      expect(await handoffDocs(daemon.root)).toEqual([]);
    });
  });
}
