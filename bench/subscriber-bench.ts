// Benchmark (g): the overflow latency a user feels: from the append of an overflowing usage line to
// `session.overflowed` arriving at an IPC subscriber of a real daemon process, beside a bare
// fs.watch on the same sessions folder, timing the SAME appends in the same run.
//
// The session files are held by this process through their session locks, as a live agent holds
// its own, so the daemon announces each crossing and then leaves the session to its owner (no
// migration closes it). Each measured append goes to one of a pool of files in turn; a usage line
// under the window follows, so the next append to that file is a new crossing.
import fsSync from 'node:fs';
import path from 'node:path';
import type { AnyEvent } from '../dist/events.js';
import { acquireLock, sessionLockName, type HeldLock } from '../dist/lock/os-lock.js';
import { projectPaths } from '../dist/paths.js';
import { DAEMON_NODE_OPTIONS } from '../dist/daemon/process/daemon-node-options.js';
import { startDaemonProcess } from './daemon-process.js';
import type { Figure, ItemResult } from './results.js';
import { copySession, usageLine, writeTemplateSession } from './session-fixture.js';
import { formatMs, pause, summarise } from './statistics.js';
import { makeBenchProject } from './temp-project.js';

export interface SubscriberBenchOptions {
  readonly daemonBin: string;
  readonly appends: number;
  readonly log: (line: string) => void;
}

const TITLE = '(g) Overflow at an IPC subscriber of the real daemon process: append → event';
const POOL = 12;
const WARMUP = 5;
const MAX_CONTEXT_TOKENS = 1000;
const SIGNAL_TIMEOUT_MS = 3000;
/** Between an overflowing append and the line that brings the file back under its window. */
const SETTLE_MS = 40;
/** Between that line and the next measured append (to another file of the pool). */
const GAP_MS = 20;

export async function benchSubscriber(options: SubscriberBenchOptions): Promise<ItemResult> {
  const project = await makeBenchProject('ipc', { git: false });
  const locks: HeldLock[] = [];
  try {
    const { template } = await writeTemplateSession(project.root, { maxContextTokens: MAX_CONTEXT_TOKENS, env: project.env });
    const folder = projectPaths(project.root).sessions;
    const files: string[] = [];
    for (let index = 0; index < POOL; index += 1) files.push(await copySession(folder, template));
    for (const file of files) {
      const lock = await acquireLock(sessionLockName(file), { env: project.env });
      if (!lock) throw new Error(`could not take the session lock of ${path.basename(file)}`);
      locks.push(lock);
    }
    const idOf = new Map<string, string>(files.map((file) => [path.basename(file, '.jsonl'), file]));

    const daemon = await startDaemonProcess({
      bin: options.daemonBin,
      root: project.root,
      env: project.env,
      outputFile: path.join(path.dirname(project.root), 'daemon.out'),
    });
    const watchLatencies: number[] = [];
    const ipcLatencies: number[] = [];
    let watchMissed = 0;
    let ipcMissed = 0;
    try {
      await daemon.waitForStatus((status) => status.ready && status.sessions.length >= POOL, 30_000);
      const client = await daemon.connect();
      // Per file, the pending append's resolvers: one for the bare watch, one for the subscriber.
      const waitingWatch = new Map<string, (at: number) => void>();
      const waitingIpc = new Map<string, (at: number) => void>();
      await client.subscribe((event: AnyEvent) => {
        const at = performance.now();
        if (event.name !== 'session.overflowed') return;
        const file = idOf.get(event.payload.sessionId);
        const resolve = file ? waitingIpc.get(file) : undefined;
        if (!file || !resolve) return;
        waitingIpc.delete(file);
        resolve(at);
      });
      const watcher = fsSync.watch(folder, (_event, name) => {
        const at = performance.now();
        if (!name) return;
        const file = path.join(folder, name.toString());
        const resolve = waitingWatch.get(file);
        if (!resolve) return; // the follow-up line, or a second event for one append
        waitingWatch.delete(file);
        resolve(at);
      });
      const descriptors = new Map(files.map((file) => [file, fsSync.openSync(file, 'a')]));
      const signal = (waiting: Map<string, (at: number) => void>, file: string) =>
        new Promise<number | null>((resolve) => {
          const timer = setTimeout(() => {
            waiting.delete(file);
            resolve(null);
          }, SIGNAL_TIMEOUT_MS);
          waiting.set(file, (at) => {
            clearTimeout(timer);
            resolve(at);
          });
        });
      try {
        options.log(
          `(g) ${options.appends} appends (after ${WARMUP} unmeasured), timed at a bare fs.watch and at an IPC subscriber of the daemon`,
        );
        for (let turn = 0; turn < options.appends + WARMUP; turn += 1) {
          const file = files[turn % files.length]!;
          const fd = descriptors.get(file)!;
          const watched = signal(waitingWatch, file);
          const announced = signal(waitingIpc, file);
          const start = performance.now();
          fsSync.writeSync(fd, usageLine(MAX_CONTEXT_TOKENS + 1 + turn));
          const [watchAt, ipcAt] = await Promise.all([watched, announced]);
          if (turn >= WARMUP) {
            if (watchAt === null) watchMissed += 1;
            else watchLatencies.push(watchAt - start);
            if (ipcAt === null) ipcMissed += 1;
            else ipcLatencies.push(ipcAt - start);
          }
          await pause(SETTLE_MS);
          fsSync.writeSync(fd, usageLine(MAX_CONTEXT_TOKENS - 100));
          await pause(GAP_MS);
        }
      } finally {
        for (const fd of descriptors.values()) fsSync.closeSync(fd);
        watcher.close();
        await client.close().catch(() => {});
      }
    } finally {
      await daemon.stop();
    }

    const watch = summarise(watchLatencies);
    const ipc = summarise(ipcLatencies);
    const ratio = ipc.median / watch.median;
    const missed = (count: number) => (count > 0 ? ` (${count} appends never signalled within ${SIGNAL_TIMEOUT_MS} ms)` : '');
    const figures: Figure[] = [
      {
        name: 'bare `fs.watch` on the sessions folder (in the benchmark process): median / p99',
        measured: `${formatMs(watch.median)} / ${formatMs(watch.p99)}${missed(watchMissed)}`,
        target: '—',
        pass: null,
      },
      {
        name: '`session.overflowed` at an IPC subscriber of the daemon process: median / p99',
        measured: `${formatMs(ipc.median)} / ${formatMs(ipc.p99)}${missed(ipcMissed)}`,
        target: '— (1.8–2.2 ms in the issue)',
        pass: null,
      },
      {
        name: 'subscriber median / bare fs.watch median',
        measured: `${ratio.toFixed(1)}×`,
        target: '≤ 5×',
        pass: ipcMissed === 0 && ratio <= 5,
      },
    ];
    return {
      id: 'g',
      title: TITLE,
      notRun: null,
      figures,
      notes: [
        `A real daemon process (\`node ${DAEMON_NODE_OPTIONS.join(' ')} dist/cli/ai-zen-daemon.js start --foreground\`, as \`start\` runs it) in a temp project, no model configured; ${POOL} sessions (copies of a real ConversationContext session, window ${MAX_CONTEXT_TOKENS} tokens) whose session locks this process holds, as their live agents would: the daemon announces each crossing, then leaves the session to its owner.`,
        `${options.appends} measured appends (after ${WARMUP} unmeasured), round-robin over the ${POOL} files; each is one overflowing usage line written with fs.writeSync on an O_APPEND fd, ${SETTLE_MS} ms later a line under the window, then ${GAP_MS} ms of quiet. The clock starts just before the write; each append is timed twice, in the same process: at the callback of a bare fs.watch on the sessions folder, and at the arrival of the daemon's \`session.overflowed\` over the IPC subscription (src/ipc/client.ts, the client \`ai-zen-daemon\` uses).`,
        `Percentiles are nearest-rank; min / max: fs.watch ${formatMs(watch.min)} / ${formatMs(watch.max)}, subscriber ${formatMs(ipc.min)} / ${formatMs(ipc.max)}.`,
      ],
    };
  } finally {
    for (const lock of locks) await lock.release().catch(() => {});
    await project.cleanup();
  }
}
