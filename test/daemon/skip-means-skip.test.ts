// R19: a `skip` line (Esc at the chat's overflow selector) is the person's choice for
// that crossing. A real daemon leaves the session alone — at the crossing, and when its owner goes
// away — until usage drops to or below the window; the next crossing is migrated as usual.
import fs from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { daemonLogPath } from '../../src/daemon/process/daemon-logger.js';
import { SessionsReply } from '../../src/daemon/side-channels/status-schema.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';
import { startSessionOwner, type SessionOwner } from './session-owner.js';

const DEADLINE = { timeoutMs: 30_000 };
const SKIPPED = 'skipped in the chat (Esc); handed off at the next crossing';
const skipLine = (promptTokens: number) => ({ type: 'skip', at: new Date().toISOString(), promptTokens });

describe('R19 skip means skip: the daemon respects a skip until the next crossing', { timeout: 90_000 }, () => {
  let daemon: DaemonRepo;
  let owner: SessionOwner | null = null;
  beforeEach(async () => {
    daemon = await makeDaemonRepo();
    await daemon.start();
  });
  afterEach(async () => {
    await owner?.kill();
    owner = null;
    await daemon.cleanup();
  });

  const sessionFromDaemon = async (id: string) => {
    const result = await daemon.daemon(['sessions', '--all', '--json']);
    return SessionsReply.parse(JSON.parse(result.stdout)).sessions.find((session) => session.id === id) ?? null;
  };
  const linesOf = async (file: string) =>
    (await fs.readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; prompt_tokens?: number; usage?: { prompt_tokens: number } });

  it('R19 raw lines: usage over → skip → no migration; below the window, then over again → migrated', async () => {
    const id = sessionId(31);
    const file = await daemon.writeSession(id, { maxContextTokens: 1000 });
    // As the chat writes them: the reply's usage, then the person's Esc (one write: nobody owns this file).
    await daemon.appendLines(id, usageLine(1400), skipLine(1400));
    const skipped = await waitFor(
      async () => {
        const session = await sessionFromDaemon(id);
        return session?.action === SKIPPED ? session : null;
      },
      { ...DEADLINE, message: 'status to say the crossing was skipped' },
    );
    expect(skipped).toMatchObject({ overflowed: true, closed: false, owner: 'none', promptTokens: 1400 });
    expect(await handoffDocs(daemon.root)).toEqual([]);

    // Still over after the next reply: the same crossing, still skipped.
    await daemon.appendLines(id, usageLine(1500));
    await waitFor(async () => (await sessionFromDaemon(id))?.promptTokens === 1500, { ...DEADLINE, message: 'usage 1500' });
    expect((await sessionFromDaemon(id))?.action).toBe(SKIPPED);
    expect(await handoffDocs(daemon.root)).toEqual([]);

    // At or below the window the skip is spent; the next crossing is handed off as usual.
    await daemon.appendLines(id, usageLine(1000));
    await waitFor(
      async () => {
        const session = await sessionFromDaemon(id);
        return session?.promptTokens === 1000 && session.overflowed === false && session.action === null;
      },
      { ...DEADLINE, message: 'usage back at the window' },
    );
    await daemon.appendLines(id, usageLine(1300));
    const [doc] = await waitFor(async () => ((await handoffDocs(daemon.root)).length > 0 ? handoffDocs(daemon.root) : null), {
      ...DEADLINE,
      message: 'the daemon to migrate the new crossing',
    });
    expect(doc).toContain(id.slice(0, 8));
    await waitFor(async () => (await linesOf(file)).at(-1)?.type === 'migrated', { ...DEADLINE, message: 'the migrated line' });
    const types = (await linesOf(file)).map((line) => (line.type === 'usage' ? `usage ${line.usage?.prompt_tokens}` : line.type));
    expect(types.slice(4)).toEqual(['usage 1400', 'skip', 'usage 1500', 'usage 1000', 'usage 1300', 'handoff', 'migrated']);
  });

  it('R19 a session skipped while its owner was live is not migrated when the owner goes away', async () => {
    const started = await startSessionOwner(daemon.root, { create: 1000 }, daemon.env);
    if (!started.ok) throw new Error(started.error);
    owner = started.owner;
    const { id, file } = owner;
    await owner.usage(1500);
    await waitFor(async () => (await sessionFromDaemon(id))?.action === 'left to its owner', { ...DEADLINE, message: 'left to its owner' });
    await fs.appendFile(file, `${JSON.stringify(skipLine(1500))}\n`);
    await waitFor(async () => (await sessionFromDaemon(id))?.action === SKIPPED, { ...DEADLINE, message: 'status to say skipped' });

    await owner.kill();
    // The reconcile pass notices the owner is gone and, because of the skip, leaves the session.
    await waitFor(
      async () =>
        (await fs.readFile(daemonLogPath(daemon.root), 'utf8').catch(() => '')).includes(
          'it was skipped in the chat, so the daemon leaves it',
        ),
      {
        ...DEADLINE,
        message: 'the daemon to notice the owner left',
      },
    );
    expect(await sessionFromDaemon(id)).toMatchObject({ owner: 'none', overflowed: true, closed: false, action: SKIPPED });
    expect(await handoffDocs(daemon.root)).toEqual([]);
    expect((await linesOf(file)).map((line) => line.type)).not.toContain('migrated');
  });
});
