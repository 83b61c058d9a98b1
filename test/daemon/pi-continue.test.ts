// For pi, with the real client offline: `ai-zen-daemon continue <session> --in pi`
// prints (`--print`) or runs `pi` from PATH in the repo's root (here with `-- --model … -p`: the
// pinned model, in print mode), whose model gets the document pointer, then the document, as the
// first prompt; the daemon links the successor to its predecessor; `migrate --undo` of the
// predecessor prints its resume command, `pi --session <id>`.
import path from 'node:path';
import { parse as parseShell } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { listPiSessions, makePiHome, PI_BIN, piEnv, runPi } from '../support/pi-client.js';
import { runCli } from '../support/run-cli.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const PINNED = 'anthropic/claude-sonnet-4-5';
const withPath = (folder: string) => `${folder}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`;

describe('continue --in pi, with the real client', { timeout: 120_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let fake: FakeAnthropic | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
    await fake?.close();
    daemon = fake = undefined;
  });

  it('pi: continue --in pi --print names pi with the document as its first prompt; run from PATH (pinned model, -p) its model gets the pointer then the document, the daemon links the successor, and migrate --undo prints pi --session', async () => {
    fake = await startFakeAnthropic();
    daemon = await makeDaemonRepo();
    const pi = await makePiHome(path.dirname(daemon.root), { baseURL: fake.baseURL });
    daemon.env.PI_CODING_AGENT_DIR = pi.agentDir;
    await daemon.start();
    fake.enqueue(anthropicReply().text('The parser is in src/parse.ts.').usage({ input_tokens: 20_000, output_tokens: 40 }));
    const first = await runPi(['-p', 'Find where the config is parsed'], { cwd: daemon.root, home: pi });
    expect(first.code, first.stderr).toBe(0);
    const [file] = await listPiSessions(pi);
    const id = path.basename(file!, '.jsonl').split('_')[1]!;
    await waitFor(async () => (await daemon!.status()).sessions.some((session) => session.id === id && session.promptTokens !== null), {
      timeoutMs: 30_000,
      message: 'the pi session in status',
    });
    const handedOff = await daemon.daemon(['handoff', shortId(id)]);
    expect(handedOff.code, handedOff.stderr).toBe(0);
    const doc = handedOff.stdout.split('\n')[0]!;

    const printed = await daemon.daemon(['continue', shortId(id), '--in', 'pi', '--print']);
    expect(printed.code, printed.stderr).toBe(0);
    const [client, prompt] = parseShell(printed.stdout.trim()) as string[];
    expect(client).toBe('pi');
    expect(prompt!.startsWith(`Read the handoff document ${doc} (the previous session's record)`)).toBe(true);

    Object.assign(daemon.env, piEnv(pi), { PI_CODING_AGENT_DIR: pi.agentDir, PATH: withPath(path.dirname(PI_BIN)) });
    const requestsBefore = fake.requests.length;
    fake.enqueue(anthropicReply().text('Reading the handoff document.').usage({ input_tokens: 9_000, output_tokens: 10 }));
    const ran = await daemon.daemon(['continue', shortId(id), '--in', 'pi', '--', '--model', PINNED, '-p'], { timeoutMs: 90_000 });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('Reading the handoff document.');
    const request = fake.requests[requestsBefore]!;
    expect(request.body.model).toBe('claude-sonnet-4-5');
    expect(request.lastUserText.startsWith(`Read the handoff document ${doc} (the previous session's record)`)).toBe(true);
    expect(request.lastUserText).toContain('Its text, as it is now:');
    // A fresh session: the prompt is its whole history (the old conversation is only in the document).
    expect(request.body.messages).toHaveLength(1);
    const successor = (await listPiSessions(pi)).find((candidate) => candidate !== file)!;
    const successorId = path.basename(successor, '.jsonl').split('_')[1]!;
    await waitFor(
      async () =>
        (await daemon!.daemon(['status', '--all'])).stdout
          .split('\n')
          .find((line) => line.startsWith(`  ${shortId(id)}  `))
          ?.includes(`handed off → ${shortId(successorId)}`) ?? false,
      { timeoutMs: 30_000, message: 'the predecessor handed off to the successor pi started' },
    );

    const undo = await runCli(['migrate', '--undo', shortId(id)], { cwd: daemon.root, env: daemon.env, timeoutMs: 30_000 });
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toBe(`pi --session ${id}\n`);
  });
});
