// For opencode and Kilo Code (opencode under its own name), one body for both, each with its real
// client offline: `ai-zen-daemon continue <session> --in <app>` prints (`--print`) or runs `<app>`
// from PATH in the repo's root (here with `-- run`: a script's run), whose model gets the document
// pointer, then the document, as the first prompt; the daemon links the successor to its predecessor;
// `migrate --undo` of the predecessor prints its resume command, `<app> --session <id>`.
import path from 'node:path';
import { parse as parseShell } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { KILO } from '../support/kilo-client.js';
import { OPENCODE } from '../support/opencode-client.js';
import { answerTitles, clientEnv, runClient } from '../support/opencode-like-client.js';
import { runCli } from '../support/run-cli.js';
import { waitFor } from '../support/wait-for.js';
import type { DaemonRepo } from './daemon-harness.js';
import { makeOpencodeLikeRepo } from './opencode-like-repo.js';

const withPath = (folder: string) => `${folder}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`;

/** How long `continue … -- run` may take: the daemon starting the client, and the client's whole run. */
const CONTINUE_RUN_MS = { opencode: 120_000, kilo: KILO.runTimeoutMs } as const;

for (const client of [OPENCODE, KILO]) {
  const { app, name } = client;

  describe(`continue --in ${app}, with the real client`, { timeout: client.testTimeoutMs }, () => {
    let daemon: DaemonRepo | undefined;
    let fake: FakeOpenAI | undefined;
    afterEach(async () => {
      await daemon?.cleanup();
      await fake?.close();
      daemon = fake = undefined;
    });

    it(`${app}: continue --in ${app} --print names ${app} with the document as its first prompt; run from PATH (\`-- run\`) its model gets the pointer then the document, the daemon links the successor, and migrate --undo prints ${app} --session`, async () => {
      fake = await startFakeOpenAI();
      answerTitles(fake);
      const made = await makeOpencodeLikeRepo(client, { baseURL: fake.baseURL, context: 100_000 });
      daemon = made.daemon;
      const { home } = made;
      await daemon.start();
      fake.enqueue(reply().text('The parser is in src/parse.ts.').usage({ prompt_tokens: 20_000, completion_tokens: 40 }));
      const first = await runClient('Find where the config is parsed', { cwd: daemon.root, home });
      expect(first.code, first.stderr).toBe(0);
      const listed = await waitFor(async () => (await daemon!.status()).sessions.find((session) => session.agent === app) ?? null, {
        timeoutMs: 30_000,
        message: `the ${name} session in status`,
      });
      const id = listed.id;
      const handedOff = await daemon.daemon(['handoff', shortId(id)]);
      expect(handedOff.code, handedOff.stderr).toBe(0);
      const doc = handedOff.stdout.split('\n')[0]!;

      const printed = await daemon.daemon(['continue', shortId(id), '--in', app, '--print']);
      expect(printed.code, printed.stderr).toBe(0);
      const [command, option, prompt] = parseShell(printed.stdout.trim()) as string[];
      expect([command, option]).toEqual([app, '--prompt']);
      expect(prompt!.startsWith(`Read the handoff document ${doc} (the previous session's record)`)).toBe(true);

      Object.assign(daemon.env, clientEnv(home), { PATH: withPath(path.dirname(client.bin)) });
      const requestsBefore = fake.requests.length;
      fake.enqueue(reply().text('Reading the handoff document.').usage({ prompt_tokens: 9_000, completion_tokens: 10 }));
      const ran = await daemon.daemon(['continue', shortId(id), '--in', app, '--', 'run'], { timeoutMs: CONTINUE_RUN_MS[app] });
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stdout).toContain('Reading the handoff document.');
      const request = fake.requests
        .slice(requestsBefore)
        .find((candidate) => candidate.lastUserText.includes('Read the handoff document'))!;
      // `<app> run` sends its message in double quotes (opencode 1.18.33 does so with every message, and Kilo as it).
      expect(request.lastUserText.replace(/^"/, '').startsWith(`Read the handoff document ${doc} (the previous session's record)`)).toBe(
        true,
      );
      expect(request.lastUserText).toContain('Its text, as it is now:');
      const successor = await waitFor(
        async () => (await daemon!.status()).sessions.find((session) => session.agent === app && session.id !== id) ?? null,
        { timeoutMs: 30_000, message: 'the successor listed' },
      );
      await waitFor(
        async () =>
          (await daemon!.daemon(['status', '--all'])).stdout
            .split('\n')
            .find((line) => line.startsWith(`  ${shortId(id)}  `))
            ?.includes(`handed off → ${shortId(successor.id)}`) ?? false,
        { timeoutMs: 30_000, message: `the predecessor handed off to the successor ${name} started` },
      );

      const undo = await runCli(['migrate', '--undo', shortId(id)], { cwd: daemon.root, env: daemon.env, timeoutMs: 30_000 });
      expect(undo.code, undo.stderr).toBe(0);
      expect(undo.stdout).toBe(`${app} --session ${id}\n`);
    });
  });
}
