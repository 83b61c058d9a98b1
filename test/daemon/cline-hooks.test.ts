// `ai-zen-daemon install-hooks cline` with the real Cline CLI (3.0.65) offline against the fake
// OpenAI server, while a real daemon watches: ai-zen's PostToolUse hook is Cline's only way to tell
// the model something mid-turn, so once the session is past its threshold the answer to its next
// tool call asks the model to write its own document; the model reads the brief, writes the file,
// and the hook after that write has the daemon verify and commit it (the self executor).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { briefNamedIn } from '../support/brief-named.js';
import { authenticateCline, type ClineHome, makeClineHome, runCline, stopHub } from '../support/cline-client.js';
import { type FakeOpenAI, type RecordedRequest, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { waitFor } from '../support/wait-for.js';
import { type DaemonRepo, makeDaemonRepo } from './daemon-harness.js';

const HOOK = path.join('.clinerules', 'hooks', 'PostToolUse');
/** The ask names the document's path (cline-agent.ts's write instructions). */
const ASKED_PATH = /at exactly this path: (\/\S+\.md)/;

const allText = (request: RecordedRequest): string => JSON.stringify(request.messages);

describe('Cline CLI hooks (install-hooks cline), with the real client', { timeout: 180_000 }, () => {
  let fake: FakeOpenAI;
  let daemon: DaemonRepo;
  let cline: ClineHome | undefined;

  beforeEach(async () => {
    fake = await startFakeOpenAI();
  });
  afterEach(async (context) => {
    if (process.env.X3_DEBUG && context.task.result?.state === 'fail')
      console.log(await fs.readFile(path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log'), 'utf8').catch(() => 'no log'));
    if (cline) await stopHub(cline);
    await daemon?.cleanup();
    await fake?.close();
  });

  it('cline: past the threshold, the PostToolUse hook has Cline write its own document; the daemon verifies and commits it (self)', async () => {
    daemon = await makeDaemonRepo({ config: { agents: { cline: { graceSeconds: 0 } } } });
    cline = await makeClineHome(path.dirname(daemon.root));
    daemon.env.CLINE_DIR = cline.dir;

    const installed = await daemon.daemon(['install-hooks', 'cline']);
    expect(installed.stderr).toBe('');
    expect(installed.stdout).toContain(`hooks installed in ${HOOK}`);
    expect(installed.stdout).toContain(`${HOOK} is kept out of git`);
    expect((await fs.stat(path.join(daemon.root, HOOK))).mode & 0o777).toBe(0o755);
    expect(await daemon.repo.git('status', '--porcelain', '--untracked-files=all')).not.toContain('.clinerules');
    expect((await daemon.daemon(['install-hooks', 'cline'])).stdout).toContain(`hooks already installed in ${HOOK}`);

    await daemon.start();
    await authenticateCline(cline, daemon.root, fake.baseURL, 'gpt-4.1');

    // 100,000 of Cline's 128k is past 70%; the model answers by what each request carries.
    const request = 'find where the flag parser lives';
    let step: 'working' | 'asked' | 'read' | 'written' = 'working';
    let askedPath = '';
    let briefRead = '';
    let toldAfter = '';
    const turns = [
      reply()
        .tool('run_commands', { commands: ['ls'] })
        .usage({ prompt_tokens: 100_000, completion_tokens: 20 }),
      reply()
        .tool('run_commands', { commands: ['git status --short'] })
        .usage({ prompt_tokens: 101_000, completion_tokens: 20 }),
      reply().text('The flag parser is not in this repo yet.').usage({ prompt_tokens: 102_000, completion_tokens: 20 }),
    ];
    fake.handle((received) => {
      const text = allText(received);
      const asked = ASKED_PATH.exec(text)?.[1];
      if (asked && step === 'working') {
        step = 'asked';
        askedPath = asked;
        return reply()
          .tool('run_commands', { commands: [`cat '${briefNamedIn(text)}'`] })
          .usage({ prompt_tokens: 103_000, completion_tokens: 20 });
      }
      if (step === 'asked') {
        step = 'read';
        briefRead = text;
        const body = HANDOFF_SECTIONS.map(
          (heading) =>
            `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\nWritten by Cline itself.` : 'The flag parser is not in this repo yet; nothing was changed.'}\n`,
        ).join('\n');
        return reply()
          .tool('run_commands', {
            commands: [`mkdir -p "$(dirname '${askedPath}')" && cat > '${askedPath}' <<'AIZEN_DOC'\n# Handoff\n\n${body}AIZEN_DOC`],
          })
          .usage({ prompt_tokens: 104_000, completion_tokens: 400 });
      }
      if (step === 'read') {
        step = 'written';
        toldAfter = text;
        return reply().text('The handoff document is written.').usage({ prompt_tokens: 105_000, completion_tokens: 20 });
      }
      return turns.shift() ?? reply().text('nothing more scripted').usage({ prompt_tokens: 105_000, completion_tokens: 5 });
    });
    // Its hook finds the daemon's socket as a person's would.
    const env = { AI_ZEN_HOME: daemon.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: daemon.env.XDG_RUNTIME_DIR! };
    const run = await runCline(['--json', request], { cwd: daemon.root, home: cline, env, timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);

    const committed = await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 60_000,
      message: 'the committed handoff',
    });
    expect(step).toBe('written');
    expect(briefRead).toContain('ai-zen handoff brief');
    expect(committed).toMatchObject({ agent: 'cline', executor: 'self' });
    expect(path.join(daemon.root, committed.path)).toBe(askedPath);
    const doc = await fs.readFile(askedPath, 'utf8');
    expect(doc).toContain('Written by Cline itself.');
    expect((await daemon.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(committed.path);
    // The hook after the write told the model the document is in, before its last reply.
    expect(toldAfter).toContain(`ai-zen: handed off → ${committed.path}`);

    const removed = await daemon.daemon(['uninstall-hooks', 'cline']);
    expect(removed.stdout).toContain(`ai-zen's hooks removed from ${HOOK}`);
    expect(await fs.stat(path.join(daemon.root, HOOK)).catch(() => null)).toBeNull();
  });
});
