import type { ItemResult } from './results.js';
import { notRun } from './results.js';
export async function benchEndToEnd(_options: { daemonBin: string; runs: number; log: (line: string) => void }): Promise<ItemResult> {
  return notRun('e', '(e) Overflow → committed handoff doc, end to end', 'not written yet');
}
