// D3 after a restart: the documents found at startup are unknown until git is asked which it
// holds. A status asked in that moment must not call a committed document uncommitted (CI caught
// the daemon saying so twice: a status waited, and one began before the watcher read the line). The lookup here waits on the test,
// so the moment is held open as long as the test likes: no timing involved.
import { describe, expect, it } from 'vitest';
import { createHandoffCommitter } from '../../src/daemon/committing/handoff-committer.js';
import { EventBus } from '../../src/events.js';
import { silentLogger } from '../../src/log/logger.js';

describe('D3 the committer at startup', () => {
  it('D3 a document found at startup is reported only once git has said whether it holds it', async () => {
    let answer: (held: Map<string, string>) => void = () => {};
    const asked: string[][] = [];
    const committer = createHandoffCommitter({
      root: '/nonexistent',
      enabled: true,
      events: new EventBus(),
      logger: silentLogger(),
      lookupCommitted: (paths) => {
        asked.push([...paths]);
        return new Promise((resolve) => (answer = resolve));
      },
    });
    const doc = '.ai-zen/handoffs/20261202-120000-00000006.md';
    committer.add({ path: doc, sessionId: '00000006', executor: 'self', mode: 'handoff', at: '2026-12-02T12:00:00Z' }, { announce: false });

    let settled = false;
    const settling = committer.settled().then(() => (settled = true));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(asked).toEqual([[doc]]);
    expect(settled).toBe(false);
    // A status that did not wait (it began before the watcher read the line) lists it not at all.
    expect(committer.list()).toEqual([]);

    answer(new Map([[doc, 'c0ffee']]));
    await settling;
    expect(committer.list()).toEqual([
      expect.objectContaining({ path: doc, status: { state: 'committed', commit: 'c0ffee' }, attempts: 0 }),
    ]);
    await committer.close();
  });
});
