// Benchmark (c): idle CPU and RSS of a real daemon process watching 1, 100, 1,000 and 10,000
// session files. For each count the daemon is started afresh in the same temp repo, asked for
// status until it knows every session, left alone past its start-up tail, then measured over a
// quiet window: CPU from /proc/<pid>/stat (utime+stime) and, precise to the nanosecond, the
// per-thread schedstat, RSS from /proc/<pid>/status. The RSS in the start-up tail is reported too.
import fsSync, { promises as fs } from 'node:fs';
import path from 'node:path';
import { DAEMON_NODE_OPTIONS } from '../dist/daemon/process/daemon-node-options.js';
import { projectPaths } from '../dist/paths.js';
import { startDaemonProcess, type DaemonProcess } from './daemon-process.js';
import { cpuPercent, memory, sampleCpu } from './proc-usage.js';
import type { Figure, ItemResult } from './results.js';
import { assistantLine, copySession, usageLine, writeTemplateSession } from './session-fixture.js';
import { formatBytes, pause } from './statistics.js';
import { makeBenchProject } from './temp-project.js';

export interface IdleBenchOptions {
  readonly daemonBin: string;
  readonly counts: readonly number[];
  readonly idleMs: number;
  /** The window starts this long after the spawn at the earliest (the start-up tail is over). */
  readonly steadyAfterSpawnMs: number;
  readonly log: (line: string) => void;
}

const TITLE = '(c) Idle CPU and RSS of a real daemon process';
/** After status first lists every session: the first facts capture and the status reply settle. */
const SETTLE_MS = 3000;
/** How long ago the sessions were last written: idle sessions, as most in a real repo are. */
const IDLE_FOR_MS = 60 * 60_000;
/** After the idle window, one agent at work: lines appended to one session, this many a second… */
const ACTIVE_LINES_PER_S = 5;
/** …for this long. */
const ACTIVE_MS = 10_000;
const TARGETS: Record<number, { cpu: number; rssMb: number }> = { 1000: { cpu: 0.1, rssMb: 80 }, 10000: { cpu: 0.5, rssMb: 150 } };

interface Measured {
  readonly count: number;
  readonly readyMs: number;
  /** RSS just after the settle, inside the start-up tail, and when that was (ms after the spawn). */
  readonly tailRss: number;
  readonly tailAtMs: number;
  readonly cpuStat: number;
  readonly cpuSched: number | null;
  readonly halves: readonly number[];
  readonly rss: number;
  readonly peak: number;
  readonly windowMs: number;
  /** CPU (schedstat, else utime+stime) while one session is written to, ACTIVE_LINES_PER_S lines a second. */
  readonly activeCpu: number;
}

export async function benchIdle(options: IdleBenchOptions): Promise<ItemResult> {
  if (process.platform !== 'linux') throw new Error("needs Linux /proc to read the daemon's CPU time and RSS");
  const templateProject = await makeBenchProject('idle-template', { git: false });
  const project = await makeBenchProject('idle');
  const measured: Measured[] = [];
  try {
    const { template } = await writeTemplateSession(templateProject.root, { maxContextTokens: 128_000, env: templateProject.env });
    const sessions = projectPaths(project.root).sessions;
    await fs.mkdir(sessions, { recursive: true });
    let present = 0;
    const lastWritten = new Date(Date.now() - IDLE_FOR_MS);
    for (const count of [...options.counts].sort((a, b) => a - b)) {
      options.log(`(c) ${count} sessions: writing ${count - present} more`);
      while (present < count) {
        const batch = Math.min(500, count - present);
        await Promise.all(Array.from({ length: batch }, () => copySession(sessions, template, { lastWritten })));
        present += batch;
      }
      options.log(`(c) ${count} sessions: starting the daemon`);
      const started = performance.now();
      const daemon = await startDaemonProcess({
        bin: options.daemonBin,
        root: project.root,
        env: project.env,
        outputFile: path.join(path.dirname(project.root), `daemon-${count}.out`),
      });
      try {
        await daemon.waitForReadyLine(120_000 + count * 20);
        // One status, as a user would ask it: every session must be known (these sit idle with no
        // process, so status folds them out as exited and counts them).
        await daemon.waitForStatus(
          (status) => status.ready && status.sessions.length + (status.exitedSessions ?? 0) + status.closedSessions === count,
          60_000,
        );
        const readyMs = performance.now() - started;
        await pause(SETTLE_MS);
        const tailAtMs = performance.now() - started;
        const tailRss = (await memory(daemon.pid)).rss;
        // Past the start-up tail: once allocation stops, V8's memory reducer shrinks the heap with a
        // few full GCs, seen here 20–45 s after the spawn (~25 ms of CPU, RSS −5 to −25 MB).
        await pause(Math.max(0, options.steadyAfterSpawnMs - (performance.now() - started)));
        options.log(`(c) ${count} sessions: measuring ${options.idleMs / 1000} s of idle`);
        const idle = await measureIdle(daemon, options.idleMs);
        options.log(`(c) ${count} sessions: one session written to, ${ACTIVE_LINES_PER_S} lines a second for ${ACTIVE_MS / 1000} s`);
        const activeCpu = await measureActive(
          daemon,
          path.join(sessions, (await fs.readdir(sessions)).find((name) => name.endsWith('.jsonl'))!),
        );
        measured.push({ count, readyMs, tailRss, tailAtMs, ...idle, activeCpu });
      } finally {
        await daemon.stop();
      }
    }
  } finally {
    await project.cleanup();
    await templateProject.cleanup();
  }

  const figures: Figure[] = [];
  for (const entry of measured) {
    const target = TARGETS[entry.count];
    const halves = entry.halves.length === 2 ? `; halves ${entry.halves.map((value) => `${value.toFixed(2)}%`).join(' / ')}` : '';
    // utime+stime moves in 10 ms ticks (0.1% of a 10 s window, the very size of the target), so
    // the mark goes by schedstat's nanoseconds when the kernel has them.
    const judged = entry.cpuSched ?? entry.cpuStat;
    figures.push({
      name: `${sessionsLabel(entry.count)}: idle CPU over ${(entry.windowMs / 1000).toFixed(1)} s`,
      measured:
        entry.cpuSched === null
          ? `${entry.cpuStat.toFixed(2)}% (utime+stime)`
          : `${entry.cpuSched.toFixed(3)}% (schedstat${halves}); utime+stime ${entry.cpuStat.toFixed(2)}%`,
      target: target ? `≤ ${target.cpu}%` : '—',
      pass: target ? judged <= target.cpu : null,
    });
    figures.push({
      name: `${sessionsLabel(entry.count)}: RSS`,
      measured: `${formatBytes(entry.rss)} (peak ${formatBytes(entry.peak)})`,
      target: target ? `≤ ${target.rssMb} MB (MiB)` : '—',
      pass: target ? entry.rss <= target.rssMb * 1024 * 1024 : null,
    });
    figures.push({
      name: `${sessionsLabel(entry.count)}: CPU while one session is written to, ${ACTIVE_LINES_PER_S} lines a second`,
      measured: `${entry.activeCpu.toFixed(2)}%`,
      target: '—',
      pass: null,
    });
    figures.push({
      name: `${sessionsLabel(entry.count)}: RSS in the start-up tail, ${(entry.tailAtMs / 1000).toFixed(0)} s after the spawn`,
      measured: formatBytes(entry.tailRss),
      target: '—',
      pass: null,
    });
  }
  return {
    id: 'c',
    title: TITLE,
    notRun: null,
    figures,
    notes: [
      `A real daemon process per count: \`node ${DAEMON_NODE_OPTIONS.join(' ')} dist/cli/ai-zen-daemon.js start --foreground\` (the options \`start\` gives the detached daemon) in a temp git repo (temp AI_ZEN_HOME and XDG_RUNTIME_DIR, no model configured), the session files (copies of a real ConversationContext session, under their window) written before it starts, their times set ${IDLE_FOR_MS / 60_000} minutes back (idle sessions: the daemon may check recently written ones more often).`,
      `The pass/fail mark of CPU goes by schedstat: utime+stime counts 10 ms ticks, so over a ${options.idleMs / 1000} s window it moves in steps of ${((1 / options.idleMs) * 1000).toFixed(2)}% — the size of the 1,000-session target.`,
      `Measured from ${options.steadyAfterSpawnMs / 1000} s after the spawn (the daemon logged "daemon ready" and one \`status\` listed every session well before), past the start-up tail — V8's memory reducer, which shrinks the heap with a few full GCs once allocation stops, seen here 20–45 s after the spawn — with nothing touching the repo: CPU = Δ(utime+stime) of /proc/<pid>/stat over the window, in % of one core (clock ticks of 10 ms: a ${options.idleMs / 1000} s window resolves ${((1 / options.idleMs) * 1000).toFixed(2)}%); schedstat = Δ of the summed /proc/<pid>/task/*/schedstat run time over the same window (ns), and over each half of it (a burst in one half is a one-off, such as a garbage collection, not the steady cost). RSS = VmRSS at the end of the window (peak = VmHWM, which includes the startup read of every file).`,
      `After the idle window, one agent at work: an assistant line and a usage line (under the window) in turn, ${ACTIVE_LINES_PER_S} a second for ${ACTIVE_MS / 1000} s, appended to one session through an O_APPEND fd; CPU over those ${ACTIVE_MS / 1000} s. It must not grow with the number of idle sessions beside it (with chokidar watching the folder it did: 132% of a core at 10,000 sessions, as chokidar re-lists and lstat()s the folder after each change).`,
      `Time from spawn to a status listing every session: ${measured.map((entry) => `${entry.count.toLocaleString('en')}: ${(entry.readyMs / 1000).toFixed(1)} s`).join(', ')}.`,
    ],
  };
}

/** One agent at work among idle sessions: what each append costs must not grow with their number. */
async function measureActive(daemon: DaemonProcess, file: string): Promise<number> {
  const fd = fsSync.openSync(file, 'a');
  try {
    const first = await sampleCpu(daemon.pid);
    const lines = (ACTIVE_MS / 1000) * ACTIVE_LINES_PER_S;
    for (let index = 0; index < lines; index += 1) {
      // A reply and its usage, under the window: read, never an overflow.
      fsSync.writeSync(fd, index % 2 === 0 ? assistantLine(`step ${index}`) : usageLine(1000 + index));
      await pause(1000 / ACTIVE_LINES_PER_S);
    }
    const last = await sampleCpu(daemon.pid);
    const percent = cpuPercent(first, last);
    return percent.sched ?? percent.stat;
  } finally {
    fsSync.closeSync(fd);
  }
}

async function measureIdle(
  daemon: DaemonProcess,
  idleMs: number,
): Promise<Omit<Measured, 'count' | 'readyMs' | 'tailRss' | 'tailAtMs' | 'activeCpu'>> {
  const first = await sampleCpu(daemon.pid);
  await pause(idleMs / 2);
  const middle = await sampleCpu(daemon.pid);
  await pause(idleMs / 2);
  const last = await sampleCpu(daemon.pid);
  const { rss, peak } = await memory(daemon.pid);
  const percent = cpuPercent(first, last);
  // The halves (precise clock) show whether the window was steady or caught a one-off burst.
  const halves = [cpuPercent(first, middle).sched, cpuPercent(middle, last).sched].filter((value): value is number => value !== null);
  return { cpuStat: percent.stat, cpuSched: percent.sched, halves, rss, peak, windowMs: last.at - first.at };
}

function sessionsLabel(count: number): string {
  return `${count.toLocaleString('en')} session${count === 1 ? '' : 's'}`;
}
