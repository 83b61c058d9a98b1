// S1 through the daemon: `ai-zen-daemon handoff --goal "…"` carries the goal over IPC to the one
// migration service; the document and the session's handoff line say it.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HandoffReply } from '../../src/daemon/side-channels/status-schema.js';
import { parseSessionText } from '../../src/session/store.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';

describe('S1 a goal through the daemon', { timeout: 60_000 }, () => {
  let daemon: DaemonRepo;
  beforeEach(async () => {
    daemon = await makeDaemonRepo();
    await daemon.start();
  });
  afterEach(async () => {
    await daemon.cleanup();
  });

  it('S1 ai-zen-daemon handoff --goal writes the document towards the goal and records it; an empty goal is refused in one line', async () => {
    const id = sessionId(21);
    await daemon.writeSession(id, { maxContextTokens: 100_000 });
    await daemon.appendLines(id, usageLine(10_000));
    await waitFor(async () => (await daemon.status()).sessions.some((session) => session.id === id), {
      message: 'the daemon to see the session',
    });

    const result = await daemon.daemon(['handoff', id, '--goal', 'Port the exporter to streams', '--json']);
    expect(result.stderr).toBe('');
    const written = HandoffReply.parse(JSON.parse(result.stdout));
    const text = await fs.readFile(path.join(daemon.root, written.path), 'utf8');
    expect(text).toContain('The next goal, named for this handoff:\n\n> Port the exporter to streams');
    const lines = parseSessionText(await fs.readFile(path.join(daemon.root, '.ai-zen', 'sessions', `${id}.jsonl`), 'utf8')).lines.map(
      (entry) => entry.line,
    );
    expect(lines.find((line) => line.type === 'handoff')).toMatchObject({ goal: 'Port the exporter to streams' });

    const empty = await daemon.daemon(['handoff', id, '--goal', '   ']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe('ai-zen-daemon: --goal must be 1 to 2000 characters\n');
  });
});
