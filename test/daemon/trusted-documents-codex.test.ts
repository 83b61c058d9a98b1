// With the real Codex client (offline, against the fake Responses server, a real daemon
// watching): a Codex session's document is checked and shows its verdict (§3), names no path of
// this machine (§2), has first steps that print at most 16 KB — the read-back of the session's turns
// among them (§1) — and the fresh Codex session started from it is linked to it and keeps its rule (§4).
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionsReply } from '../../src/daemon/side-channels/status-schema.js';
import { codexExec, listRollouts, makeCodexHome, runCodex, type CodexHome } from '../support/codex-client.js';
import { responsesReply, startFakeResponses, type FakeResponses } from '../support/fake-responses.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

/** The window Codex reports for gpt-5.5 (272k × 95%). */
const WINDOW = 258_400;
const tokens = (percent: number) => Math.round((WINDOW * percent) / 100);
const PASSED = { sections: [], facts: [], files: [], commands: [] };
const section = (doc: string, marker: string) => (doc.split(`\n## ${marker}`)[1] ?? '').split('\n## ')[0]!;

describe('documents a successor can trust, with the real Codex client', { timeout: 180_000 }, () => {
  let fake: FakeResponses;
  let daemon: DaemonRepo;
  let codex: CodexHome;

  beforeEach(async () => {
    fake = await startFakeResponses();
  });
  afterEach(async () => {
    await daemon?.cleanup();
    await fake?.close();
  });

  const committed = (count: number) =>
    waitFor(
      async () => {
        const handoffs = (await daemon.status()).handoffs.filter((entry) => entry.state === 'committed');
        return handoffs.length >= count ? handoffs : null;
      },
      { timeoutMs: 45_000, message: `${count} committed handoffs` },
    );

  async function runStep(command: string): Promise<{ code: number | null; stdout: string }> {
    if (command.startsWith('ai-zen-daemon ')) return daemon.daemon(command.split(' ').slice(1));
    return new Promise((resolve) => {
      const child = spawn('bash', ['-c', command], { cwd: daemon.root, env: { ...process.env, ...daemon.env } });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.on('exit', (code) => resolve({ code, stdout }));
    });
  }

  it('a Codex session crossing handoffAt: checked ✓, no machine path, bounded first steps with the read-back; its successor is linked to it and carries its rule', async () => {
    daemon = await makeDaemonRepo({ config: { agents: { codex: { graceSeconds: 0 } } } });
    codex = await makeCodexHome(path.dirname(daemon.root), { baseURL: fake.baseURL });
    (daemon.env as Record<string, string>).CODEX_HOME = codex.codexHome;
    await daemon.start();

    fake.enqueue(
      responsesReply()
        .text('Reading the code first.')
        .usage({ input_tokens: tokens(30), output_tokens: 100 }),
    );
    expect((await codexExec('Add a --verbose flag to the CLI. Never add dependencies.', { cwd: daemon.root, home: codex })).code).toBe(0);
    await waitFor(async () => (await daemon.status()).sessions.some((session) => session.agent === 'codex' && session.percent === 30), {
      timeoutMs: 30_000,
      message: 'the Codex session at 30%',
    });
    fake.enqueue(
      responsesReply()
        .text('The flag parser is in src/cli.ts; wiring it next.')
        .usage({ input_tokens: tokens(72), output_tokens: 50 }),
    );
    expect(
      (
        await runCodex(['exec', '--skip-git-repo-check', 'resume', '--last', 'and document it in the README'], {
          cwd: daemon.root,
          home: codex,
        })
      ).code,
    ).toBe(0);
    const [first] = await committed(1);
    const [rollout] = await listRollouts(codex);
    const firstId = first!.sessionId;
    const doc = await fs.readFile(path.join(daemon.root, first!.path), 'utf8');

    // §3 the verdict; §2 nothing of this machine.
    expect(first).toMatchObject({ agent: 'codex', checks: PASSED });
    expect((await daemon.daemon(['handoffs'])).stdout).toContain('checked ✓');
    expect(doc).not.toContain(daemon.root);
    expect(doc).not.toContain(codex.codexHome);
    expect(doc).not.toContain(rollout!);
    // §1 every first step runs and prints at most 16 KB; the read-back holds the turns.
    const steps = (/```sh\n([\s\S]*?)```/.exec(section(doc, '🔔'))?.[1] ?? '').split('\n').filter((line) => line.trim() !== '');
    expect(steps).toContain(`ai-zen-daemon transcript ${firstId} --last 20`);
    for (const step of steps) {
      const result = await runStep(step);
      expect(result.code, step).toBe(0);
      expect(Buffer.byteLength(result.stdout), step).toBeLessThanOrEqual(16 * 1024);
    }
    const readBack = (await runStep(`ai-zen-daemon transcript ${firstId.slice(0, 8)} --last 3`)).stdout;
    expect(readBack).toContain(`session ${firstId} (codex): the last 3 of `);
    expect(readBack).toContain('and document it in the README');
    expect(readBack).toContain('The flag parser is in src/cli.ts');

    // §4 the successor Codex session, from the announced command, then over its own threshold.
    const prompt = /^codex "((?:[^"\\]|\\.)*)"$/.exec(first!.successorCommand!)![1]!.replace(/\\(["$`\\])/g, '$1');
    fake.enqueue(
      responsesReply()
        .text('Reading the handoff document.')
        .usage({ input_tokens: tokens(20), output_tokens: 10 }),
    );
    expect((await codexExec(prompt, { cwd: daemon.root, home: codex })).code).toBe(0);
    fake.enqueue(
      responsesReply()
        .text('The flag is wired and documented.')
        .usage({ input_tokens: tokens(72), output_tokens: 10 }),
    );
    expect(
      (await runCodex(['exec', '--skip-git-repo-check', 'resume', '--last', 'finish the flag'], { cwd: daemon.root, home: codex })).code,
    ).toBe(0);
    const second = (await committed(2)).find((entry) => entry.path !== first!.path)!;
    expect(second.checks).toEqual(PASSED);
    const doc2 = await fs.readFile(path.join(daemon.root, second.path), 'utf8');
    expect(section(doc2, '🎯')).toContain(`This session continued the work of the previous handoff document \`${first!.path}\``);
    expect(section(doc2, '⚠️')).toContain('> Never add dependencies.');
    const sessions = SessionsReply.parse(JSON.parse((await daemon.daemon(['sessions', '--json'])).stdout)).sessions;
    expect(sessions.find((session) => session.id === second.sessionId)?.previous).toEqual({ path: first!.path, sessionId: firstId });
  });
});
