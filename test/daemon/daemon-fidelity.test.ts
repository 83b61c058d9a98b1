// F1–F4 shown by the daemon: the checks a handoff line records (whoever wrote it) reach
// `ai-zen-daemon handoffs`, `status` and the handoff.written event; the daemon's own migrations are
// checked by the same pipeline.
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../src/events.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, messageLine, sealedHandoffLine, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';

const DEADLINE = { timeoutMs: 30_000 };
const PASSED = { sections: [], facts: [], files: [], commands: [] };

describe('F1–F4 in the daemon', { timeout: 60_000 }, () => {
  let daemon: DaemonRepo;
  afterEach(async () => {
    await daemon?.cleanup();
  });

  it('F1–F4 the daemon shows what a recorded document still fails, in handoffs, status and the event; its own offline migration is checked ✓', async () => {
    daemon = await makeDaemonRepo();
    await daemon.start();
    const events: AnyEvent[] = [];
    await (await daemon.connect()).subscribe((event) => events.push(event));

    // A handoff line that records failed checks, as any writer may append it.
    const id = sessionId(12);
    await daemon.writeSession(id, { maxContextTokens: 100_000 });
    const doc = '.ai-zen/handoffs/20261203-060000-00000012.md';
    const checks = {
      sections: ['section "⚠️ Constraints and preferences" is missing'],
      facts: ['the document says branch `master`; the branch is `main`'],
      files: [],
      commands: [],
    };
    // T1: the line names the document's sha256, as ai-zen's own writer seals it.
    await daemon.appendLines(id, await sealedHandoffLine(daemon.root, doc, `# Handoff\n\n${'text '.repeat(100)}\n`, { checks }));

    await waitFor(() => events.some((event) => event.name === 'handoff.written'), { ...DEADLINE, message: 'the written event' });
    expect(events.find((event) => event.name === 'handoff.written')?.payload).toMatchObject({ path: doc, checks });
    const listed = await daemon.daemon(['handoffs']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${doc}  self`);
    expect(listed.stdout).toContain(
      'check failed: section "⚠️ Constraints and preferences" is missing; the document says branch `master`; the branch is `main`',
    );
    expect((await daemon.status()).handoffs.find((handoff) => handoff.path === doc)?.checks).toEqual(checks);

    // The daemon's own handoff of an unowned, overflowing session goes through the checks too.
    const other = sessionId(13);
    await daemon.writeSession(other, { maxContextTokens: 1000 });
    await daemon.appendLines(other, messageLine('user', 'Keep the API stable. Fix the parser.'), usageLine(1500));
    const own = await waitFor(async () => (await daemon.status()).handoffs.find((handoff) => handoff.sessionId === other) ?? null, {
      ...DEADLINE,
      message: "the daemon's own handoff",
    });
    expect(own.checks).toEqual(PASSED);
    const status = await daemon.daemon(['status']);
    expect(status.stdout).toMatch(new RegExp(`${own.path.replace(/[.]/g, '\\.')}  offline .*checked ✓`));
    expect(status.stdout).toContain('check failed: section "⚠️ Constraints and preferences" is missing');
  });
});
