// With the real opencode (1.18.33) and the real Kilo Code CLI (7.7.9, opencode under its own name),
// one body for both, offline, and a real daemon: a session crossing its threshold is handed off
// offline (no plugin of ours in the client) — a committed document with the nine sections, the user's
// request and the command the client ran with its exit status, the successor command a fresh
// `<app>` — and `handoff <prefix>` hands off another session by hand.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { KILO } from '../support/kilo-client.js';
import { OPENCODE } from '../support/opencode-client.js';
import { answerTitles, type OpencodeHome, runClient } from '../support/opencode-like-client.js';
import { waitFor } from '../support/wait-for.js';
import type { DaemonRepo } from './daemon-harness.js';
import { makeOpencodeLikeRepo } from './opencode-like-repo.js';

for (const client of [OPENCODE, KILO]) {
  const { app, name } = client;

  describe(`${name} handoffs, with the real client`, { timeout: client.testTimeoutMs }, () => {
    let fake: FakeOpenAI;
    let daemon: DaemonRepo;
    let home: OpencodeHome;

    beforeEach(async () => {
      fake = await startFakeOpenAI();
      answerTitles(fake);
      ({ daemon, home } = await makeOpencodeLikeRepo(client, { baseURL: fake.baseURL, context: 100_000, graceSeconds: 0 }));
    });
    afterEach(async () => {
      await daemon?.cleanup();
      await fake?.close();
    });

    it(`${app}: a session crossing handoffAt is handed off offline — a committed document with the nine sections, the request and its command, a fresh \`${app}\` to continue; \`handoff <prefix>\` hands off a small session by hand`, async () => {
      await daemon.start();
      fake.enqueue(
        reply()
          .tool('bash', { command: 'echo step > notes.txt', description: 'write notes' })
          .usage({ prompt_tokens: 20_000, completion_tokens: 20 }),
        reply().text('Wrote notes.txt.').usage({ prompt_tokens: 80_000, completion_tokens: 30 }),
      );
      const crossed = await runClient('write the notes file', { cwd: daemon.root, home });
      expect(crossed.code, crossed.stderr).toBe(0);
      const handoff = await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.state === 'committed'), {
        timeoutMs: 60_000,
        message: 'the committed handoff',
      });
      const session = (await daemon.status()).sessions.find((listed) => listed.agent === app)!;
      expect(session).toMatchObject({ promptTokens: 80_030, percent: 80 });
      expect(handoff).toMatchObject({ agent: app, executor: 'offline' });
      expect(handoff.path).toMatch(new RegExp(`^\\.ai-zen/handoffs/\\d{8}-\\d{6}-${shortId(session.id)}\\.md$`));
      const doc = await fs.readFile(path.join(daemon.root, handoff.path), 'utf8');
      expect(
        doc
          .split('\n')
          .filter((line) => line.startsWith('## '))
          .map((line) => line.slice(3)),
      ).toEqual([...HANDOFF_SECTIONS]);
      expect(doc).toContain('write the notes file');
      expect(doc).toMatch(/`echo step > notes\.txt` — exit 0/);
      expect(handoff.successorCommand).toMatch(
        new RegExp(`^${app} --prompt "Read the handoff document \\.ai-zen/handoffs/.+\\.md \\(the previous session's record\\)`),
      );
      expect((await daemon.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(handoff.path);

      // By hand: a small session, far below its threshold.
      fake.enqueue(reply().text('Small one.').usage({ prompt_tokens: 30_000, completion_tokens: 10 }));
      expect((await runClient('a small question', { cwd: daemon.root, home })).code).toBe(0);
      const small = await waitFor(
        async () => (await daemon.status()).sessions.find((listed) => listed.agent === app && listed.id !== session.id) ?? null,
        { timeoutMs: 30_000, message: 'the small session listed' },
      );
      const byHand = await daemon.daemon(['handoff', shortId(small.id).slice(0, 6)]);
      expect(byHand.stderr).toBe('');
      expect(byHand.code).toBe(0);
      const [docPath, written, next] = byHand.stdout.trimEnd().split('\n');
      expect(docPath).toMatch(new RegExp(`^\\.ai-zen/handoffs/\\d{8}-\\d{6}-${shortId(small.id)}\\.md$`));
      expect(written).toBe(`  written by offline for ${app} session ${shortId(small.id)}`);
      expect(next).toMatch(new RegExp(`^ {2}continue with: ${app} --prompt "Read the handoff document`));
      expect(await fs.readFile(path.join(daemon.root, docPath!), 'utf8')).toContain('a small question');
    });
  });
}
