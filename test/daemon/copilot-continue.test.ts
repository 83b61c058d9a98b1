// For GitHub Copilot CLI, with the real client offline: `ai-zen-daemon continue
// <session> --in copilot` prints (`--print`) or runs `copilot` from PATH in the repo's root (here
// with `-- -p --allow-all-tools`: a script's run, on the pinned model), whose model gets the
// document pointer, then the document, as the first prompt of a fresh session; the daemon links the
// successor to its predecessor; `migrate --undo` of the predecessor prints `copilot --resume=<id>`.
import path from 'node:path';
import { parse as parseShell } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import {
  COPILOT_BIN,
  copilotEnv,
  copilotPrompt,
  listCopilotTranscripts,
  makeCopilotHome,
  PINNED_MODEL,
} from '../support/copilot-client.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { runCli } from '../support/run-cli.js';
import { waitFor } from '../support/wait-for.js';
import { type DaemonRepo, makeDaemonRepo } from './daemon-harness.js';

const withPath = (folder: string) => `${folder}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`;

describe('continue --in copilot, with the real client', { timeout: 150_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let fake: FakeOpenAI | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
    await fake?.close();
    daemon = fake = undefined;
  });

  it('copilot: continue --in copilot --print names `copilot -i` with the document as its first prompt; run from PATH (-p) its model gets the pointer then the document in a fresh session, the daemon links the successor, and migrate --undo prints copilot --resume=<id>', async () => {
    fake = await startFakeOpenAI();
    daemon = await makeDaemonRepo();
    const home = await makeCopilotHome(path.dirname(daemon.root));
    const provider = { type: 'openai', baseURL: fake.baseURL, model: PINNED_MODEL } as const;
    daemon.env.COPILOT_HOME = home.copilotHome;
    await daemon.start();
    fake.enqueue(reply().text('The parser is in src/parse.ts.').usage({ prompt_tokens: 20_000, completion_tokens: 40 }));
    const first = await copilotPrompt('Find where the config is parsed', { cwd: daemon.root, home, provider });
    expect(first.code, first.stderr).toBe(0);
    const [file] = await listCopilotTranscripts(home);
    const id = path.basename(path.dirname(file!));
    await waitFor(async () => (await daemon!.status()).sessions.some((session) => session.id === id && session.promptTokens === 20_040), {
      timeoutMs: 30_000,
      message: 'the Copilot session in status',
    });
    const handedOff = await daemon.daemon(['handoff', shortId(id)]);
    expect(handedOff.code, handedOff.stderr).toBe(0);
    const doc = handedOff.stdout.split('\n')[0]!;

    const printed = await daemon.daemon(['continue', shortId(id), '--in', 'copilot', '--print']);
    expect(printed.code, printed.stderr).toBe(0);
    const [client, flag, prompt] = parseShell(printed.stdout.trim()) as string[];
    expect([client, flag]).toEqual(['copilot', '-i']);
    expect(prompt!.startsWith(`Read the handoff document ${doc} (the previous session's record)`)).toBe(true);

    Object.assign(daemon.env, copilotEnv({ home, provider }), { PATH: withPath(path.dirname(COPILOT_BIN)) });
    const requestsBefore = fake.requests.length;
    fake.enqueue(reply().text('Reading the handoff document.').usage({ prompt_tokens: 9_000, completion_tokens: 10 }));
    const ran = await daemon.daemon(['continue', shortId(id), '--in', 'copilot', '--', '-p', '--allow-all-tools'], { timeoutMs: 90_000 });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('Reading the handoff document.');
    const request = fake.requests[requestsBefore]!;
    expect(request.body.model).toBe(PINNED_MODEL);
    expect(request.lastUserText).toContain(`Read the handoff document ${doc} (the previous session's record)`);
    expect(request.lastUserText).toContain('Its text, as it is now:');
    // A fresh session: one prompt, no earlier turn (the old conversation is only in the document).
    expect(request.messages.filter((message) => message.role === 'user')).toHaveLength(1);
    expect(request.messages.filter((message) => message.role === 'assistant')).toHaveLength(0);
    const successor = (await listCopilotTranscripts(home)).find((candidate) => candidate !== file)!;
    const successorId = path.basename(path.dirname(successor));
    await waitFor(
      async () =>
        (await daemon!.daemon(['status', '--all'])).stdout
          .split('\n')
          .find((line) => line.startsWith(`  ${shortId(id)}  `))
          ?.includes(`handed off → ${shortId(successorId)}`) ?? false,
      { timeoutMs: 30_000, message: 'the predecessor handed off to the successor copilot started' },
    );

    const undo = await runCli(['migrate', '--undo', shortId(id)], { cwd: daemon.root, env: daemon.env, timeoutMs: 30_000 });
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toBe(`copilot --resume=${id}\n`);
  });
});
