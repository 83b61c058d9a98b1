import type { ItemResult } from './results.js';
import { notRun } from './results.js';
export async function benchIdle(_options: { daemonBin: string; counts: number[]; idleMs: number; log: (line: string) => void }): Promise<ItemResult> {
  return notRun('c', '(c) Idle CPU and RSS of a real daemon', 'not written yet');
}
