import type { ItemResult } from './results.js';
import { notRun } from './results.js';
export async function benchLatency(_options: { appends: number; log: (line: string) => void }): Promise<ItemResult> {
  return notRun('a', '(a) Overflow detection latency', 'not written yet');
}
