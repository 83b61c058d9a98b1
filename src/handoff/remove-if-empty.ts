// A reserved document name (an empty file) that no executor filled is removed when the handoff
// fails, so a failure leaves no empty document behind. Anything with content is kept.
import { promises as fs } from 'node:fs';

export async function removeIfEmpty(file: string): Promise<void> {
  try {
    const stat = await fs.lstat(file);
    if (stat.isFile() && stat.size === 0) await fs.rm(file);
  } catch {
    // Gone already, or not ours to judge: nothing to clean.
  }
}
