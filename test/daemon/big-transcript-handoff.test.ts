// A long session of another agent is handed off whatever its transcript's size: the real daemon
// writes the offline document from a Claude Code transcript and a Codex rollout of hundreds of MB
// (read as a stream, the older messages kept as a digest), and each transcript is left as it was.
// How much memory and time that takes is bench item t's to measure, not this test's.
import { createHash } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { writeClaudeTranscript, writeCodexRollout } from '../../bench/big-transcript-fixture.js';
import { claudeSlug } from '../../src/daemon/sources/claude-code/claude-paths.js';
import { shortId } from '../../src/short-id.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const BYTES = 256 * 1024 * 1024;

async function sha(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

describe('a big transcript of another agent is handed off', { timeout: 600_000 }, () => {
  let daemon: DaemonRepo | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
    daemon = undefined;
  });

  it('X3 a 256 MB Claude Code transcript and a 256 MB Codex rollout are each handed off by hand to an offline document that lists their first request and last command; neither transcript changes', async () => {
    daemon = await makeDaemonRepo();
    const configDir = path.join(daemon.repo.home, 'claude');
    (daemon.env as Record<string, string>).CLAUDE_CONFIG_DIR = configDir;
    const claudeId = '7a1c0000-0000-4000-8000-000000000001';
    const codexId = '019a7a1c-0000-7000-8000-000000000002';
    const claudeFile = path.join(configDir, 'projects', claudeSlug(daemon.root), `${claudeId}.jsonl`);
    const codexFile = path.join(daemon.env.CODEX_HOME!, 'sessions', '2026', '12', '05', `rollout-2026-12-05T07-00-00-${codexId}.jsonl`);
    await fs.mkdir(path.dirname(claudeFile), { recursive: true });
    await fs.mkdir(path.dirname(codexFile), { recursive: true });
    const claude = await writeClaudeTranscript(claudeFile, { root: daemon.root, sessionId: claudeId, bytes: BYTES });
    const codex = await writeCodexRollout(codexFile, { root: daemon.root, sessionId: codexId, bytes: BYTES });
    const before = { claude: await sha(claudeFile), codex: await sha(codexFile) };
    await daemon.start();
    await waitFor(
      async () => {
        const ids = (await daemon!.status()).sessions.map((session) => session.id);
        return ids.includes(claudeId) && ids.includes(codexId);
      },
      { timeoutMs: 300_000, message: 'both big sessions in status' },
    );

    for (const [id, written, agent] of [
      [claudeId, claude, 'claude-code'],
      [codexId, codex, 'codex'],
    ] as const) {
      const handedOff = await daemon.daemon(['handoff', shortId(id), '--executor', 'offline'], { timeoutMs: 300_000 });
      expect(handedOff.stderr).toBe('');
      expect(handedOff.code).toBe(0);
      const [document, by] = handedOff.stdout.split('\n');
      expect(by).toBe(`  written by offline for ${agent} session ${shortId(id)}`);
      const text = await fs.readFile(path.join(daemon.root, document!), 'utf8');
      expect(text).toContain('Step 0: fix the failing case in src/module-0.ts');
      expect(text).toContain('- `npm test -- --grep "case 0"` — exit 1');
      expect(text).toContain(`- \`npm test -- --grep "case ${written.commands - 1}"\``);
    }
    expect({ claude: await sha(claudeFile), codex: await sha(codexFile) }).toEqual(before);
  });
});
