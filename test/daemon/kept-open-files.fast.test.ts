// D1: a session being written stays open between the watcher's reads (kept-open-files.ts), and that
// never makes the daemon read a file other than the one the path names now: a file renamed over
// it, deleted, moved away or rewritten in place is noticed as before. Real files, a real fs.watch;
// the descriptors are read from /proc (Linux).
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WatchFolder } from '../../src/daemon/watching/folder-watch.js';
import { KEEP_OPEN_MS, MAX_KEPT_OPEN } from '../../src/daemon/watching/kept-open-files.js';
import { createAiZenSessionSource } from '../../src/daemon/watching/session-source-ai-zen.js';
import type { SessionUpdate } from '../../src/daemon/watching/session-source.js';
import { SessionWatcher } from '../../src/daemon/watching/session-watcher.js';
import { silentLogger } from '../../src/log/logger.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';
import { waitFor } from '../support/wait-for.js';
import { headerLine, sessionId, usageLine } from './daemon-harness.js';

/** What this process has open under `folder` ("… (deleted)" for a file unlinked since). */
function openUnder(folder: string): string[] {
  const open: string[] = [];
  for (const fd of fsSync.readdirSync('/proc/self/fd')) {
    try {
      const target = fsSync.readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${folder}${path.sep}`)) open.push(target);
    } catch {
      // closed while listed (the listing's own descriptor)
    }
  }
  return open;
}

describe.runIf(process.platform === 'linux')('D1 session files kept open between reads', () => {
  let repo: TempRepo;
  let folder: string;
  let watcher: SessionWatcher | null = null;
  let updates: SessionUpdate[];
  let clock: number;

  beforeEach(async () => {
    repo = await makeTempRepo({ git: false });
    folder = path.join(repo.root, '.ai-zen', 'sessions');
    await fs.mkdir(folder, { recursive: true });
    updates = [];
    clock = Date.now();
  });
  afterEach(async () => {
    await watcher?.close();
    watcher = null;
    await repo.cleanup();
  });

  const header = (id: string) => headerLine(id, repo.root);
  const text = (...lines: unknown[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join('');
  const fileOf = (id: string) => path.join(folder, `${id}.jsonl`);
  const append = (id: string, ...lines: unknown[]) => fs.appendFile(fileOf(id), text(...lines));
  /** fs.watch, whose events can be lost on purpose (as an overflowed inotify queue loses them). */
  const hearing = { on: true };
  const losableWatch: WatchFolder = (dir, handlers) => {
    const watch = fsSync.watch(dir, (event, name) => {
      if (hearing.on) handlers.change(name === null ? null : String(name), event === 'change' ? 'change' : 'rename');
    });
    watch.on('error', handlers.error);
    return { close: () => watch.close() };
  };
  const start = async () => {
    hearing.on = true;
    watcher = new SessionWatcher({
      folder,
      sources: [createAiZenSessionSource()],
      logger: silentLogger(),
      reconcileIntervalMs: 3_600_000, // passes run only when a test calls one
      onUpdate: (update) => updates.push(update),
      now: () => clock,
      watchFolder: losableWatch,
    });
    await watcher.start();
    return watcher;
  };
  const usageOf = (live: SessionWatcher, id: string) => live.state(fileOf(id))?.latestUsage?.prompt_tokens;
  /** A session read once from the start and once more by an append: from then on its file stays open. */
  const writtenTo = async (live: SessionWatcher, id: string) => {
    await append(id, header(id), usageLine(100));
    await waitFor(() => usageOf(live, id) === 100, { message: `${id} read` });
    await append(id, usageLine(200));
    await waitFor(() => usageOf(live, id) === 200, { message: `${id}'s append read` });
  };

  it('D1 a session being written stays open between reads, and a file renamed over it is read from its start', async () => {
    const live = await start();
    const id = sessionId(1);
    await writtenTo(live, id);
    expect(openUnder(folder)).toEqual([fileOf(id)]);

    // Replaced the way an editor or `mv` does: a new file renamed over the old name.
    const replacement = path.join(folder, 'replacement.tmp');
    await fs.writeFile(replacement, text(header(id), usageLine(900)));
    await fs.rename(replacement, fileOf(id));
    await waitFor(() => usageOf(live, id) === 900, { message: 'the new file, read' });
    expect(updates.some((update) => update.reset === 'replaced')).toBe(true);
    // The old file is closed; the new one is the one kept open once it is appended to.
    expect(openUnder(folder).filter((target) => target.endsWith('(deleted)'))).toEqual([]);
    await append(id, usageLine(1500));
    await waitFor(() => live.state(fileOf(id))?.overflowed === true, { message: 'the overflow in the new file' });
    expect(openUnder(folder)).toEqual([fileOf(id)]);
  });

  it('D1 an append whose event is lost after a read through the kept file is found by the next pass', async () => {
    const live = await start();
    const id = sessionId(5);
    await writtenTo(live, id);
    // The stamp of that read is taken after its news: the file as the read left it.
    hearing.on = false;
    await append(id, usageLine(1500));
    await live.reconcile();
    expect(live.state(fileOf(id))).toMatchObject({ overflowed: true, latestUsage: { prompt_tokens: 1500 } });
  });

  it('D1 a session file deleted while kept open is reported gone, and its descriptor closed', async () => {
    const live = await start();
    const id = sessionId(2);
    await writtenTo(live, id);
    await fs.rm(fileOf(id));
    await waitFor(() => updates.some((update) => update.missing && update.state.sessionId === id), { message: 'the file, gone' });
    expect(live.state(fileOf(id))).toBeNull();
    expect(openUnder(folder)).toEqual([]);
  });

  it('D1 a session file moved to another name is gone under its old name, not read through the descriptor', async () => {
    const live = await start();
    const id = sessionId(3);
    await writtenTo(live, id);
    const moved = path.join(folder, 'moved-away.jsonl.bak');
    await fs.rename(fileOf(id), moved);
    await waitFor(() => updates.some((update) => update.missing && update.state.sessionId === id), { message: 'the old name, gone' });
    await fs.appendFile(moved, text(usageLine(1500)));
    await live.reconcile();
    expect(live.state(fileOf(id))).toBeNull();
    expect(openUnder(folder)).toEqual([]);
  });

  it('D1 a session file rewritten in place (the same file, other lines) is read again from its start', async () => {
    const live = await start();
    const id = sessionId(4);
    await writtenTo(live, id);
    const inode = fsSync.statSync(fileOf(id)).ino;
    await fs.writeFile(fileOf(id), text(header(id), usageLine(700), usageLine(750), usageLine(760))); // O_TRUNC: same inode
    expect(fsSync.statSync(fileOf(id)).ino).toBe(inode);
    await waitFor(() => usageOf(live, id) === 760, { message: 'the rewritten lines' });
    expect(updates.some((update) => update.reset === 'truncated' || update.reset === 'rewritten')).toBe(true);
  });

  it(`D1 a session quiet for ${KEEP_OPEN_MS / 60_000} minutes is closed by the next pass; at most ${MAX_KEPT_OPEN} stay open; none after close`, async () => {
    const live = await start();
    const ids = Array.from({ length: MAX_KEPT_OPEN + 4 }, (_, index) => sessionId(100 + index));
    for (const id of ids) await writtenTo(live, id);
    expect(openUnder(folder)).toHaveLength(MAX_KEPT_OPEN);
    // The least recently written are the ones closed.
    expect(openUnder(folder)).not.toContain(fileOf(ids[0]!));
    expect(openUnder(folder)).toContain(fileOf(ids.at(-1)!));

    await live.reconcile();
    expect(openUnder(folder)).toHaveLength(MAX_KEPT_OPEN); // written just now: kept
    clock += KEEP_OPEN_MS + 60_000;
    await live.reconcile();
    expect(openUnder(folder)).toEqual([]);

    // Written again: open again, and closed with the watcher.
    await append(ids[0]!, usageLine(300));
    await waitFor(() => usageOf(live, ids[0]!) === 300, { message: 'the append after the quiet' });
    expect(openUnder(folder)).toEqual([fileOf(ids[0]!)]);
    await live.close();
    watcher = null;
    expect(openUnder(folder)).toEqual([]);
  });
});
