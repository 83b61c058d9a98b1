// Qwen Code's hook stdin is Claude Code's (session_id, transcript_path, cwd, stop_hook_active,
// trigger, source), but its Stop hook can run before the transcript holds the reply that ended the
// turn (checked with 0.24.4: its records go through a write queue, and on a loaded machine the
// line came seconds after the hook had answered), so the daemon would judge the turn by the reading
// before it. Its Stop input says the reading it ended with (`input_tokens`, its lastPromptTokenCount):
// the hook waits, a few seconds at most, until the transcript's tail shows it, then asks the daemon.
import { openRegularFile } from '../../../fs/open-regular-file.js';
import type { HookInput } from '../agent-module.js';

const WAIT_MS = 10_000;
const POLL_MS = 50;
/** A reply line is a few KB; its usage is near its end. */
const TAIL_BYTES = 256 * 1024;

export async function readQwenHookInput(raw: unknown, waitMs = WAIT_MS): Promise<HookInput | null> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const input = raw as Record<string, unknown>;
  const tokens = input.input_tokens;
  if (
    input.hook_event_name === 'Stop' &&
    typeof input.transcript_path === 'string' &&
    Number.isSafeInteger(tokens) &&
    (tokens as number) > 0
  )
    await untilTailHolds(input.transcript_path, [`"promptTokenCount":${tokens}`, `"totalTokenCount":${tokens}`], waitMs);
  return input as HookInput;
}

async function untilTailHolds(file: string, needles: readonly string[], waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const tail = await readTail(file);
    if (tail === null || needles.some((needle) => tail.includes(needle)) || Date.now() >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function readTail(file: string): Promise<string | null> {
  const handle = await openRegularFile(file).catch(() => null);
  if (!handle) return null;
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}
