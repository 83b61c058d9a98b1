// CPU time and memory of another process, from Linux /proc. utime+stime come in clock ticks
// (1/100 s here), too coarse to tell 0.05% from 0.1% over 10 s, so the summed per-thread
// schedstat (nanoseconds on the CPU) is read as well, as the precise cross-check.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';

export interface CpuSample {
  readonly at: number;
  /** utime + stime of the whole process, in seconds. */
  readonly statSeconds: number;
  /** Sum of the live threads' time on the CPU, in seconds (schedstat). */
  readonly schedSeconds: number | null;
}

let ticksPerSecond: number | null = null;
function clockTicks(): number {
  if (ticksPerSecond === null) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

export async function sampleCpu(pid: number): Promise<CpuSample> {
  const at = performance.now();
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces and parentheses: split after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of the file are utime and stime; here they are at index 11 and 12.
  const ticks = Number(fields[11]) + Number(fields[12]);
  let sched: number | null = 0;
  try {
    for (const task of await fs.readdir(`/proc/${pid}/task`)) {
      const text = await fs.readFile(`/proc/${pid}/task/${task}/schedstat`, 'utf8').catch(() => null);
      if (text !== null) sched += Number(text.split(' ')[0]) / 1e9;
    }
  } catch {
    sched = null;
  }
  return { at, statSeconds: ticks / clockTicks(), schedSeconds: sched };
}

/** Percent of one core between two samples. */
export function cpuPercent(from: CpuSample, to: CpuSample): { stat: number; sched: number | null } {
  const seconds = (to.at - from.at) / 1000;
  return {
    stat: ((to.statSeconds - from.statSeconds) / seconds) * 100,
    sched: from.schedSeconds !== null && to.schedSeconds !== null ? ((to.schedSeconds - from.schedSeconds) / seconds) * 100 : null,
  };
}

/** Resident set size (VmRSS) in bytes, and its peak (VmHWM). */
export async function memory(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}
