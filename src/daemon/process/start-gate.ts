// Test-only: `AI_ZEN_TEST_START_GATE=<a FIFO>` holds a starting daemon — its lock taken, its socket
// not yet open — until a test writes to that FIFO and closes it. So a test can show, by events and
// not by timing, what happens before the daemon answers: an agent's SessionStart hook in an enabled
// repo returns (and the agent answers) while the daemon it launched is still starting.
// `AI_ZEN_TEST_LISTENING_GATE` holds it one step later: its socket answers, its transcripts are not
// read yet — so a `stop` can be shown arriving while the daemon is still starting.
// Unused unless a test sets them.
import { promises as fs } from 'node:fs';
import type { Env } from '../../paths.js';

export async function passStartGate(
  env: Env,
  name: 'AI_ZEN_TEST_START_GATE' | 'AI_ZEN_TEST_LISTENING_GATE' = 'AI_ZEN_TEST_START_GATE',
): Promise<void> {
  const gate = env[name];
  if (!gate) return;
  // Opening a FIFO for reading waits for a writer; reading to its end waits for the writer to close.
  const handle = await fs.open(gate, 'r');
  try {
    await handle.readFile();
  } finally {
    await handle.close();
  }
}
