// With the real Gemini CLI (`@google/gemini-cli`) driven offline against the fake Gemini
// server, in a temp repo and a temp GEMINI_CLI_HOME, while a real daemon watches: the sessions it
// reads are the ones the client itself wrote. One client run per model serves every assertion: its
// first reply (a shell command, 30% of the window) is held in status while the test looks, its
// second (48%) crosses the threshold — 47% by default: 3 points below Gemini's own compression at
// 50%. On the client's default model (no --model: "auto", whose router asks which model — the fake
// says a simple task, so Gemini's flash model) and on one pinned with -m (Gemma 4: a 256k window).
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionsReply } from '../../src/daemon/side-channels/status-schema.js';
import { shortId } from '../../src/short-id.js';
import { geminiReply, startFakeGemini, type FakeGemini } from '../support/fake-gemini.js';
import { geminiPrompt, listGeminiSessions, makeGeminiHome, type GeminiHome } from '../support/gemini-client.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const sha = async (file: string) =>
  createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');

/** A document's section by the marker its heading starts with. */
function section(doc: string, marker: string): string {
  const start = doc.indexOf(`## ${marker}`);
  if (start < 0) return '';
  const next = doc.indexOf('\n## ', start + 3);
  return doc.slice(start, next < 0 ? undefined : next);
}

const MODELS = [
  // What the client's tokenLimit gives every Gemini model, and Gemma 4.
  { name: 'the default model (no --model)', pinned: undefined, window: 1_048_576 },
  { name: 'a pinned model (-m gemma-4-31b-it)', pinned: 'gemma-4-31b-it', window: 256_000 },
] as const;

describe('X3 gemini: Gemini CLI sessions watched and handed off, with the real client', { timeout: 240_000 }, () => {
  let fake: FakeGemini;
  let daemon: DaemonRepo;
  let gemini: GeminiHome;

  beforeEach(async () => {
    fake = await startFakeGemini();
  });
  afterEach(async (context) => {
    if (process.env.X3_DEBUG && context.task.result?.state === 'fail') {
      console.log(JSON.stringify(await daemon.status().catch(() => null), null, 1));
      console.log(await fs.readFile(path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log'), 'utf8').catch(() => 'no log'));
    }
    await daemon?.cleanup();
    await fake?.close();
  });

  const geminiSessions = async () => (await daemon.status()).sessions.filter((session) => session.agent === 'gemini');

  for (const model of MODELS) {
    it(`X3 gemini on ${model.name}: its session is listed (status, status --json, sessions) with the context and window Gemini itself counts, another repo's is not; at the threshold the offline document (nine sections) is committed with a fresh \`gemini\` to continue, \`handoff <prefix>\` works too, and the transcript is never written`, async () => {
      daemon = await makeDaemonRepo({ config: { agents: { gemini: { graceSeconds: 0 } } } });
      gemini = await makeGeminiHome(path.dirname(daemon.root));
      // The daemon and the client share the Gemini home (the harness gives the daemon an empty one).
      daemon.env.GEMINI_CLI_HOME = gemini.home;
      await daemon.start();
      // Rounded up: the percent shown (rounded down) is exactly `percent`.
      const tokens = (percent: number) => Math.ceil((model.window * percent) / 100);
      const run = { home: gemini, baseURL: fake.baseURL, ...(model.pinned ? { model: model.pinned } : {}) };

      if (!model.pinned) {
        // Another repo's session, well over any threshold: never listed.
        const elsewhere = path.join(path.dirname(daemon.root), 'elsewhere');
        await fs.mkdir(elsewhere);
        fake.enqueue(
          geminiReply()
            .text('other repo')
            .usage({ prompt: tokens(80) }),
        );
        const other = await geminiPrompt('work elsewhere', { ...run, cwd: elsewhere });
        expect(other.code, other.stderr).toBe(0);
      }

      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const request = 'add a --verbose flag to the CLI';
      fake.enqueue(
        geminiReply()
          .call('run_shell_command', { command: 'ls -a', description: 'look around' })
          .usage({ prompt: tokens(30), cached: tokens(20), candidates: 40 }),
        geminiReply()
          .text('The flag parser is in src/cli.ts; wiring it next.')
          .until(gate)
          .usage({ prompt: tokens(48), cached: tokens(30), candidates: 60 }),
      );
      const turnsBefore = fake.turns().length;
      let id = '';
      let transcriptPath = '';
      const running = geminiPrompt(request, { ...run, cwd: daemon.root });
      try {
        const listed = await waitFor(
          async () => {
            const [session] = await geminiSessions();
            return session?.promptTokens === tokens(30) ? session : null;
          },
          { timeoutMs: 90_000, message: 'the Gemini session listed at its first reading' },
        );
        id = listed.id;
        transcriptPath = listed.transcript!;
        // The model the client chose (for the default: whatever its router picked) is the one whose window counts.
        const asked = fake.turns()[turnsBefore]!;
        if (model.pinned) expect(asked.model).toBe(model.pinned);
        expect(listed).toMatchObject({
          agent: 'gemini',
          model: asked.model,
          percent: 30,
          promptTokens: tokens(30),
          maxContextTokens: model.window,
          handoffAt: 47,
          compactsAt: 50,
          overflowed: false,
        });
        expect(listed.transcript).toMatch(/\/\.gemini\/tmp\/[^/]+\/chats\/session-[^/]+\.jsonl$/);
        expect((await geminiSessions()).map((session) => session.id)).toEqual([id]);
        const text = (await daemon.daemon(['status'])).stdout;
        const line = text.split('\n').find((entry) => entry.includes(shortId(id)));
        expect(line).toContain(` 30%  ${Math.round(tokens(30) / 1000)}k/${model.window === 256_000 ? '256k' : '1M'} `);
        expect(line).toContain(`gemini (hands off at 47%, compacts itself at ~50%) · ${asked.model} · owner: none`);
        const overIpc = SessionsReply.parse(JSON.parse((await daemon.daemon(['sessions', '--json'])).stdout)).sessions;
        expect(overIpc.filter((session) => session.agent === 'gemini').map((session) => [session.id, session.promptTokens])).toEqual([
          [id, tokens(30)],
        ]);
      } finally {
        // Whatever happened above, the client gets its reply and ends.
        release();
      }

      const finished = await running;
      expect(finished.code, finished.stderr).toBe(0);
      expect(await listGeminiSessions(gemini)).toContain(transcriptPath);
      const asWritten = await sha(transcriptPath);

      const handoff = await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.state === 'committed'), {
        timeoutMs: 60_000,
        message: 'the committed handoff',
      });
      expect(handoff).toMatchObject({ agent: 'gemini', executor: 'offline' });
      expect(handoff.path).toMatch(new RegExp(`^\\.ai-zen/handoffs/\\d{8}-\\d{6}-${shortId(id)}\\.md$`));
      expect((await daemon.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(handoff.path);
      const doc = await fs.readFile(path.join(daemon.root, handoff.path), 'utf8');
      for (const heading of HANDOFF_SECTIONS) expect(section(doc, heading), heading).not.toBe('');
      expect(section(doc, '💬')).toContain(`> ${request}`);
      expect(doc).toContain('ls -a');
      expect(handoff.successorCommand).toMatch(
        /^gemini -i "Read the handoff document \.ai-zen\/handoffs\/.+\.md \(the previous session's record\)/,
      );
      const session = (await geminiSessions()).find((entry) => entry.id === id)!;
      expect(session.successorCommand).toBe(handoff.successorCommand);
      expect(session).toMatchObject({ percent: 48, promptTokens: tokens(48), overflowed: true });

      // By hand, by the prefix status prints.
      const byHand = await daemon.daemon(['handoff', shortId(id).slice(0, 6)]);
      expect(byHand.stderr).toBe('');
      expect(byHand.code).toBe(0);
      const [docPath, written] = byHand.stdout.trimEnd().split('\n');
      expect(written).toBe(`  written by offline for gemini session ${shortId(id)}`);
      expect(await fs.readFile(path.join(daemon.root, docPath!), 'utf8')).toContain(request);
      expect(await handoffDocs(daemon.root)).toHaveLength(2);
      // Read, never written: the transcript is what the client wrote.
      expect(await sha(transcriptPath)).toBe(asWritten);
    });
  }
});
