// For Kilo Code, with the real CLI (7.7.9) offline, as opencode-continue.test.ts does with opencode:
// `ai-zen-daemon continue <session> --in kilo` prints (`--print`) or runs `kilo` from PATH in the
// repo's root (here with `-- run`: a script's run), whose model gets the document pointer, then the
// document, as the first prompt; the daemon links the successor to its predecessor; `migrate --undo`
// of the predecessor prints its resume command, `kilo --session <id>`.
import path from 'node:path';
import { parse as parseShell } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { answerTitles, KILO_BIN, KILO_RUN_MS, KILO_TEST_MS, kiloEnv, makeKiloHome, runKilo } from '../support/kilo-client.js';
import { runCli } from '../support/run-cli.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const withPath = (folder: string) => `${folder}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`;

describe('continue --in kilo, with the real client', { timeout: KILO_TEST_MS }, () => {
  let daemon: DaemonRepo | undefined;
  let fake: FakeOpenAI | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
    await fake?.close();
    daemon = fake = undefined;
  });

  it('kilo: continue --in kilo --print names kilo with the document as its first prompt; run from PATH (`-- run`) its model gets the pointer then the document, the daemon links the successor, and migrate --undo prints kilo --session', async () => {
    fake = await startFakeOpenAI();
    answerTitles(fake);
    daemon = await makeDaemonRepo();
    const kilo = await makeKiloHome(path.dirname(daemon.root), { baseURL: fake.baseURL, context: 100_000 });
    daemon.env.XDG_DATA_HOME = kilo.dataHome;
    daemon.env.XDG_CONFIG_HOME = kilo.configHome;
    await daemon.start();
    fake.enqueue(reply().text('The parser is in src/parse.ts.').usage({ prompt_tokens: 20_000, completion_tokens: 40 }));
    const first = await runKilo('Find where the config is parsed', { cwd: daemon.root, home: kilo });
    expect(first.code, first.stderr).toBe(0);
    const listed = await waitFor(async () => (await daemon!.status()).sessions.find((session) => session.agent === 'kilo') ?? null, {
      timeoutMs: 30_000,
      message: 'the Kilo session in status',
    });
    const id = listed.id;
    const handedOff = await daemon.daemon(['handoff', shortId(id)]);
    expect(handedOff.code, handedOff.stderr).toBe(0);
    const doc = handedOff.stdout.split('\n')[0]!;

    const printed = await daemon.daemon(['continue', shortId(id), '--in', 'kilo', '--print']);
    expect(printed.code, printed.stderr).toBe(0);
    const [client, option, prompt] = parseShell(printed.stdout.trim()) as string[];
    expect([client, option]).toEqual(['kilo', '--prompt']);
    expect(prompt!.startsWith(`Read the handoff document ${doc} (the previous session's record)`)).toBe(true);

    Object.assign(daemon.env, kiloEnv(kilo), { PATH: withPath(path.dirname(KILO_BIN)) });
    const requestsBefore = fake.requests.length;
    fake.enqueue(reply().text('Reading the handoff document.').usage({ prompt_tokens: 9_000, completion_tokens: 10 }));
    const ran = await daemon.daemon(['continue', shortId(id), '--in', 'kilo', '--', 'run'], { timeoutMs: KILO_RUN_MS });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('Reading the handoff document.');
    const request = fake.requests.slice(requestsBefore).find((candidate) => candidate.lastUserText.includes('Read the handoff document'))!;
    // `kilo run` sends its message in double quotes, as opencode 1.18.33's does.
    expect(request.lastUserText.replace(/^"/, '').startsWith(`Read the handoff document ${doc} (the previous session's record)`)).toBe(
      true,
    );
    expect(request.lastUserText).toContain('Its text, as it is now:');
    const successor = await waitFor(
      async () => (await daemon!.status()).sessions.find((session) => session.agent === 'kilo' && session.id !== id) ?? null,
      { timeoutMs: 30_000, message: 'the successor listed' },
    );
    await waitFor(
      async () =>
        (await daemon!.daemon(['status', '--all'])).stdout
          .split('\n')
          .find((line) => line.startsWith(`  ${shortId(id)}  `))
          ?.includes(`handed off → ${shortId(successor.id)}`) ?? false,
      { timeoutMs: 30_000, message: 'the predecessor handed off to the successor Kilo started' },
    );

    const undo = await runCli(['migrate', '--undo', shortId(id)], { cwd: daemon.root, env: daemon.env, timeoutMs: 30_000 });
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toBe(`kilo --session ${id}\n`);
  });
});
