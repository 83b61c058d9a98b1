// Finding this repo's Codex rollouts among many, with real folders and real fs.watch.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { CodexRolloutTree } from '../../src/daemon/codex/codex-rollout-tree.js';
import { readRolloutMeta } from '../../src/daemon/codex/codex-rollout-meta.js';
import { waitFor } from '../support/wait-for.js';

const quiet = { debug() {}, warn() {} };
let base: string;
let sessions: string;
let repo: string;

const metaLine = (cwd: string, id: string) =>
  JSON.stringify({ timestamp: '2026-12-03T05:43:02.000Z', ordinal: 0, type: 'session_meta', payload: { session_id: id, id, cwd, base_instructions: { text: 'x'.repeat(20_000) } } });
const countLine = (total: number) =>
  JSON.stringify({ timestamp: 't', ordinal: 1, type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: total, output_tokens: 0, total_tokens: total }, model_context_window: 258_400 } } });

async function writeRollout(day: string, id: string, cwd: string): Promise<string> {
  const folder = path.join(sessions, day);
  await fs.mkdir(folder, { recursive: true });
  const file = path.join(folder, `rollout-2026-01-01T00-00-00-${id}.jsonl`);
  await fs.writeFile(file, `${metaLine(cwd, id)}\n`);
  return file;
}

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-codex-tree-')));
  sessions = path.join(base, 'codex', 'sessions');
  repo = path.join(base, 'repo');
  await fs.mkdir(repo, { recursive: true });
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

describe('X3 Codex rollouts of this repo among many', () => {
  test('X3 other repos’ rollouts are read once (their head only) and never again; this repo’s are found in any day folder, subfolders included', async () => {
    for (let n = 0; n < 300; n += 1) await writeRollout(`2026/${n % 2 === 0 ? '10' : '11'}/${String(1 + (n % 28)).padStart(2, '0')}`, uuid(n), `/elsewhere/repo-${n}`);
    const old = await writeRollout('2026/10/05', uuid(1000), repo);
    const inSubfolder = await writeRollout('2026/11/30', uuid(1001), path.join(repo, 'packages', 'a'));
    const reported: string[] = [];
    const bytesRead: number[] = [];
    const tree = new CodexRolloutTree({
      sessionsFolder: sessions,
      root: repo,
      logger: quiet,
      onRollout: (file) => reported.push(file),
      readMeta: async (file) => {
        bytesRead.push(4096);
        return readRolloutMeta(file);
      },
    });
    try {
      await tree.start();
      expect(tree.ownRollouts().sort()).toEqual([old, inSubfolder].sort());
      expect(new Set(reported)).toEqual(new Set([old, inSubfolder]));
      expect(tree.counters.metaReads).toBe(302);

      // Another repo's session grows; ours is resumed in its old day's file (`codex exec resume`).
      // (uuid 4 sits beside ours in 2026/10/05, a watched folder; uuid 3 in an unwatched one.)
      await fs.appendFile(path.join(sessions, '2026/10/05', `rollout-2026-01-01T00-00-00-${uuid(4)}.jsonl`), `${countLine(5)}\n`);
      await fs.appendFile(path.join(sessions, '2026/11/04', `rollout-2026-01-01T00-00-00-${uuid(3)}.jsonl`), `${countLine(5)}\n`);
      reported.length = 0;
      await fs.appendFile(old, `${countLine(1234)}\n`);
      await waitFor(() => reported.includes(old), { message: 'the resumed rollout in an old day folder is reported' });
      await tree.reconcile();
      expect(tree.counters.metaReads).toBe(302);
    } finally {
      tree.close();
    }
  });

  test('X3 a new day’s folder appearing at midnight (a new month and year too) is watched, and its new rollout found', async () => {
    await writeRollout('2026/12/31', uuid(1), '/elsewhere');
    const reported: string[] = [];
    const tree = new CodexRolloutTree({ sessionsFolder: sessions, root: repo, logger: quiet, onRollout: (file) => reported.push(file) });
    try {
      await tree.start();
      expect(tree.ownRollouts()).toEqual([]);
      const fresh = await writeRollout('2027/01/01', uuid(2), repo);
      await waitFor(() => reported.includes(fresh), { message: 'the rollout in the new day folder is found by the watch' });
      // A rollout created empty, its first line written after: decided at its next event.
      const later = path.join(sessions, '2027/01/01', `rollout-2027-01-01T00-00-01-${uuid(3)}.jsonl`);
      await fs.writeFile(later, '');
      await fs.appendFile(later, `${metaLine(repo, uuid(3))}\n`);
      await waitFor(() => reported.includes(later), { message: 'the rollout whose first line came after its creation is found' });
    } finally {
      tree.close();
    }
  });

  test('X3 with no sessions folder yet, the reconcile pass finds it once Codex makes it', async () => {
    const reported: string[] = [];
    const tree = new CodexRolloutTree({ sessionsFolder: sessions, root: repo, logger: quiet, onRollout: (file) => reported.push(file) });
    try {
      await tree.start();
      const file = await writeRollout('2026/12/03', uuid(7), repo);
      await waitFor(async () => {
        await tree.reconcile();
        return reported.includes(file);
      }, { message: 'the first rollout is found once the folder exists' });
    } finally {
      tree.close();
    }
  });
});
