// D1: the watcher over `.ai-zen/sessions/` — real files, a real fs.watch, and a watch that hears
// nothing at all (what an overflowed inotify queue looks like: no error).
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAiZenSessionSource } from '../../src/daemon/watching/session-source-ai-zen.js';
import type { SessionUpdate } from '../../src/daemon/watching/session-source.js';
import type { WatchFolder } from '../../src/daemon/watching/folder-watch.js';
import { SessionWatcher } from '../../src/daemon/watching/session-watcher.js';
import { silentLogger } from '../../src/log/logger.js';
import { memoryLogger } from '../support/memory-logger.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';
import { waitFor } from '../support/wait-for.js';
import { headerLine, messageLine, sessionId, usageLine } from './daemon-harness.js';

const quiet = silentLogger();

const deafWatcher: WatchFolder = () => ({ close() {} });

/** fs.watch, counting the watches made; the first `failures` attempts fail as the inotify limit does. */
function countedWatch(failures = 0): WatchFolder & { made: number; attempts: number } {
  const watch = ((folder, handlers) => {
    watch.attempts += 1;
    if (watch.attempts <= failures)
      throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
    const watcher = fsSync.watch(folder, (_event, name) => handlers.change(name));
    watcher.on('error', handlers.error);
    watch.made += 1;
    return { close: () => watcher.close() };
  }) as WatchFolder & { made: number; attempts: number };
  watch.made = 0;
  watch.attempts = 0;
  return watch;
}

describe('D1 the session watcher', () => {
  let repo: TempRepo;
  let folder: string;
  let watcher: SessionWatcher | null = null;
  let updates: { update: SessionUpdate; initial: boolean }[];

  beforeEach(async () => {
    repo = await makeTempRepo({ git: false });
    folder = path.join(repo.root, '.ai-zen', 'sessions');
    updates = [];
  });
  afterEach(async () => {
    await watcher?.close();
    watcher = null;
    await repo.cleanup();
  });

  const header = (id: string) => headerLine(id, repo.root);
  const append = (id: string, ...lines: unknown[]) =>
    fs.appendFile(path.join(folder, `${id}.jsonl`), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  const start = async (options: { deaf?: boolean; watchFolder?: WatchFolder; reconcileIntervalMs?: number } = {}) => {
    watcher = new SessionWatcher({
      folder,
      sources: [createAiZenSessionSource()],
      logger: quiet,
      reconcileIntervalMs: options.reconcileIntervalMs ?? 60_000,
      onUpdate: (update, info) => updates.push({ update, initial: info.initial }),
      ...(options.deaf ? { watchFolder: deafWatcher } : options.watchFolder ? { watchFolder: options.watchFolder } : {}),
    });
    await watcher.start();
    return watcher;
  };

  it('D1 sessions present at start are read as history; a burst of appends is read to its last line', async () => {
    await fs.mkdir(folder, { recursive: true });
    const old = sessionId(1);
    await append(old, header(old), usageLine(10));
    const live = await start();
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({ initial: true, update: { state: { sessionId: old, latestUsage: { prompt_tokens: 10 } } } });

    const id = sessionId(2);
    await append(id, header(id));
    for (let index = 1; index <= 20; index += 1) {
      await append(id, messageLine('user', `turn ${index}`), usageLine(index * 10));
      await new Promise((resolve) => setTimeout(resolve, 10)); // a burst, as an agent writes it (no reconcile pass runs: 60 s)
    }
    const file = path.join(folder, `${id}.jsonl`);
    await waitFor(() => live.state(file)?.latestUsage?.prompt_tokens === 200, { message: 'the last usage line' });
    expect(live.state(file)).toMatchObject({ messageCount: 20, overflowed: false });
    expect(updates.filter((entry) => entry.update.state.sessionId === id).every((entry) => !entry.initial)).toBe(true);
  });

  it('D1 the reconcile pass finds new files and appended lines when the watcher hears nothing', async () => {
    const deaf = await start({ deaf: true, reconcileIntervalMs: 50 });
    const id = sessionId(3);
    await fs.mkdir(folder, { recursive: true });
    await append(id, header(id), usageLine(900));
    await waitFor(() => deaf.state(path.join(folder, `${id}.jsonl`))?.latestUsage?.prompt_tokens === 900, { message: 'the new file' });
    await append(id, usageLine(1500));
    const crossing = await waitFor(() => updates.find((entry) => entry.update.overflowStarted), { message: 'the overflow' });
    expect(crossing.update.state).toMatchObject({ sessionId: id, overflowed: true, latestUsage: { prompt_tokens: 1500 } });
  });

  it('D1 idle sessions are re-checked in slices, so thousands cost little; sessions that just changed, every pass', async () => {
    await fs.mkdir(folder, { recursive: true });
    const ids = [sessionId(10), sessionId(11), sessionId(12)];
    const anHourAgo = new Date(Date.now() - 3_600_000);
    for (const id of ids) {
      await append(id, header(id), usageLine(100));
      // Last written an hour ago: idle ("cold") sessions.
      await fs.utimes(path.join(folder, `${id}.jsonl`), anHourAgo, anHourAgo);
    }
    watcher = new SessionWatcher({
      folder,
      sources: [createAiZenSessionSource()],
      logger: quiet,
      reconcileIntervalMs: 40_000, // one pass covers a third of the 120 s cold period: one cold file per pass
      onUpdate: (update, info) => updates.push({ update, initial: info.initial }),
      watchFolder: deafWatcher,
    });
    await watcher.start();
    // Lines that no event announces (the watch is deaf); the files keep their old times.
    for (const id of ids) {
      await append(id, usageLine(200));
      await fs.utimes(path.join(folder, `${id}.jsonl`), anHourAgo, anHourAgo);
    }
    const seen = (tokens: number) =>
      ids.filter((id) => watcher!.state(path.join(folder, `${id}.jsonl`))?.latestUsage?.prompt_tokens === tokens).length;
    await watcher.reconcile();
    expect(seen(200)).toBe(1);
    await watcher.reconcile();
    expect(seen(200)).toBe(2);
    await watcher.reconcile();
    expect(seen(200)).toBe(3);
    // Written just now ("hot"): from the read that saw it, the session is checked on every pass.
    for (const id of ids) await append(id, usageLine(300));
    await watcher.reconcile();
    await watcher.reconcile();
    await watcher.reconcile();
    expect(seen(300)).toBe(3);
    for (const id of ids) await append(id, usageLine(400));
    await watcher.reconcile();
    expect(seen(400)).toBe(3);
  });

  it('D1 a session folder removed and made again is watched again by the next reconcile pass', async () => {
    await fs.mkdir(folder, { recursive: true });
    const watch = countedWatch();
    const live = await start({ watchFolder: watch });
    expect(watch.made).toBe(1);
    await fs.rm(folder, { recursive: true });
    await fs.mkdir(folder);
    // The old watch says its folder went away; a pass after that watches the new folder.
    await waitFor(
      async () => {
        await live.reconcile();
        return watch.made >= 2;
      },
      { message: 'a second watch' },
    );
    // Heard through the new watch (no pass runs again: 60 s).
    const id = sessionId(20);
    await append(id, header(id), usageLine(1500));
    await waitFor(() => updates.find((entry) => entry.update.overflowStarted && entry.update.state.sessionId === id), {
      message: 'the overflow, through the new watch',
    });
  });

  it('after rm -rf of .ai-zen, the sessions folder made again is heard at once — no reconcile pass runs', async () => {
    await fs.mkdir(folder, { recursive: true });
    const live = await start({ reconcileIntervalMs: 3_600_000 });
    await fs.rm(path.dirname(folder), { recursive: true });
    // As `ai-zen` does when it starts the next session: the folders come back, then the file.
    const id = sessionId(22);
    await fs.mkdir(folder, { recursive: true });
    await append(id, header(id), usageLine(1500));
    await waitFor(() => updates.find((entry) => entry.update.overflowStarted && entry.update.state.sessionId === id), {
      message: 'the overflow in the folder made again, with no pass to find it',
    });
    expect(live.state(path.join(folder, `${id}.jsonl`))?.overflowed).toBe(true);
  });

  it('a session added in the same clock tick as the listing that missed it is found by the next pass', async () => {
    await fs.mkdir(folder, { recursive: true });
    // A whole millisecond, so that setting it again below gives the very same time.
    const mtime = new Date();
    await fs.utimes(folder, mtime, mtime);
    const deaf = await start({ deaf: true }); // lists the empty folder
    const id = sessionId(23);
    await append(id, header(id), usageLine(100));
    // The folder's time as the coarse clock can leave it: unchanged by the new entry.
    await fs.utimes(folder, mtime, mtime);
    await deaf.reconcile();
    expect(deaf.state(path.join(folder, `${id}.jsonl`))?.latestUsage?.prompt_tokens).toBe(100);
  });

  it('D1 when the folder cannot be watched (the inotify limit), the reconcile pass carries on and watches once it can', async () => {
    await fs.mkdir(folder, { recursive: true });
    const log = memoryLogger();
    const warnings = () => log.at('warn').map((record) => record.msg);
    const watch = countedWatch(2);
    watcher = new SessionWatcher({
      folder,
      sources: [createAiZenSessionSource()],
      logger: log.logger,
      reconcileIntervalMs: 60_000,
      onUpdate: (update, info) => updates.push({ update, initial: info.initial }),
      watchFolder: watch,
    });
    await watcher.start();
    expect(warnings()).toEqual(['cannot watch the session folder; the reconcile pass covers it']);
    const id = sessionId(21);
    await append(id, header(id), usageLine(100));
    await watcher.reconcile(); // still refused (logged once), but the pass finds the new session
    expect(watcher.state(path.join(folder, `${id}.jsonl`))?.latestUsage?.prompt_tokens).toBe(100);
    expect(warnings()).toHaveLength(1);
    await watcher.reconcile(); // the limit is gone: watching again
    expect(watch.made).toBe(1);
    await append(id, usageLine(1500));
    await waitFor(() => updates.find((entry) => entry.update.overflowStarted), { message: 'the overflow, through the watch' });
  });

  it('D1 a closed (migrated) session needs no further work', async () => {
    const deaf = await start({ deaf: true });
    const id = sessionId(4);
    await fs.mkdir(folder, { recursive: true });
    await append(id, header(id), usageLine(1500), { type: 'migrated', at: '2026-12-02T00:00:01Z', newId: sessionId(5), path: 'doc.md' });
    await deaf.reconcile();
    const file = path.join(folder, `${id}.jsonl`);
    expect(deaf.state(file)).toMatchObject({ closed: true, overflowed: false, successorId: sessionId(5) });
    await append(id, usageLine(2500));
    await deaf.reconcile();
    await deaf.reconcile();
    expect(deaf.state(file)?.latestUsage?.prompt_tokens).toBe(1500);
  });
});
