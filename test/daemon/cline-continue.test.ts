// For Cline CLI, with the real client offline: `ai-zen-daemon continue <session> --in cline` prints
// (`--print`) or runs `cline` from PATH in the repo's root (here with `-- --json`: a script's run),
// whose model gets the document pointer, then the document, as the first prompt; the daemon links the
// successor to its predecessor; `migrate --undo` of the predecessor prints `cline -i --id <id>`.
import path from 'node:path';
import { parse as parseShell } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import {
  authenticateCline,
  CLINE_BIN,
  type ClineHome,
  clineEnv,
  listClineSessions,
  makeClineHome,
  runCline,
  stopHub,
} from '../support/cline-client.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { runCli } from '../support/run-cli.js';
import { waitFor } from '../support/wait-for.js';
import { type DaemonRepo, makeDaemonRepo } from './daemon-harness.js';

const withPath = (folder: string) => `${folder}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`;

describe('continue --in cline, with the real client', { timeout: 180_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let fake: FakeOpenAI | undefined;
  let cline: ClineHome | undefined;
  afterEach(async () => {
    if (cline) await stopHub(cline);
    await daemon?.cleanup();
    await fake?.close();
    daemon = fake = cline = undefined;
  });

  it('cline: continue --in cline --print names cline -i with the document as its first prompt; run from PATH (--json) its model gets the pointer then the document, the daemon links the successor, and migrate --undo prints cline -i --id', async () => {
    fake = await startFakeOpenAI();
    daemon = await makeDaemonRepo();
    cline = await makeClineHome(path.dirname(daemon.root));
    daemon.env.CLINE_DIR = cline.dir;
    await daemon.start();
    await authenticateCline(cline, daemon.root, fake.baseURL, 'gpt-4.1');
    fake.enqueue(reply().text('The parser is in src/parse.ts.').usage({ prompt_tokens: 20_000, completion_tokens: 40 }));
    const first = await runCline(['--json', 'Find where the config is parsed'], { cwd: daemon.root, home: cline });
    expect(first.code, first.stderr).toBe(0);
    const [file] = await listClineSessions(cline);
    const id = path.basename(path.dirname(file!));
    await waitFor(async () => (await daemon!.status()).sessions.some((session) => session.id === id && session.promptTokens !== null), {
      timeoutMs: 30_000,
      message: 'the Cline session in status',
    });
    const handedOff = await daemon.daemon(['handoff', shortId(id)]);
    expect(handedOff.code, handedOff.stderr).toBe(0);
    const doc = handedOff.stdout.split('\n')[0]!;

    const printed = await daemon.daemon(['continue', shortId(id), '--in', 'cline', '--print']);
    expect(printed.code, printed.stderr).toBe(0);
    const [client, interactive, prompt] = parseShell(printed.stdout.trim()) as string[];
    expect([client, interactive]).toEqual(['cline', '-i']);
    expect(prompt!.startsWith(`Read the handoff document ${doc} (the previous session's record)`)).toBe(true);

    Object.assign(daemon.env, clineEnv(cline), { PATH: withPath(path.dirname(CLINE_BIN)) });
    const requestsBefore = fake.requests.length;
    fake.enqueue(reply().text('Reading the handoff document.').usage({ prompt_tokens: 9_000, completion_tokens: 10 }));
    const ran = await daemon.daemon(['continue', shortId(id), '--in', 'cline', '--', '--json'], { timeoutMs: 120_000 });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('Reading the handoff document.');
    const request = fake.requests[requestsBefore]!;
    expect(request.lastUserText).toContain(`Read the handoff document ${doc} (the previous session's record)`);
    expect(request.lastUserText).toContain('Its text, as it is now:');
    const successor = (await listClineSessions(cline)).find((candidate) => candidate !== file)!;
    const successorId = path.basename(path.dirname(successor));
    await waitFor(
      async () =>
        (await daemon!.daemon(['status', '--all'])).stdout
          .split('\n')
          .find((line) => line.startsWith(`  ${shortId(id)}  `))
          ?.includes(`handed off → ${shortId(successorId)}`) ?? false,
      { timeoutMs: 30_000, message: 'the predecessor handed off to the successor cline started' },
    );

    const undo = await runCli(['migrate', '--undo', shortId(id)], { cwd: daemon.root, env: daemon.env, timeoutMs: 30_000 });
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toBe(`cline -i --id ${id}\n`);
  });
});
