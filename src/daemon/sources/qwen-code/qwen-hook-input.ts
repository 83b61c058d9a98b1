// Qwen Code's hook stdin is Claude Code's (session_id, transcript_path, cwd, stop_hook_active,
// trigger, source), but its Stop hook can run before the transcript holds the reply that ended the
// turn (checked with 0.24.4: its records go through a write queue, and on a loaded machine the
// line came seconds after the hook had answered), so the daemon would judge the turn by the reading
// before it. Its Stop input says the reading it ended with (`input_tokens`, its lastPromptTokenCount):
// the hook waits, a few seconds at most, until the transcript's tail shows it, then asks the daemon.
import type { HookInput } from '../agent-module.js';
import { readTail } from '../kit/transcript-tail.js';

const WAIT_MS = 10_000;
const POLL_MS = 50;

export async function readQwenHookInput(raw: unknown, waitMs = WAIT_MS): Promise<HookInput | null> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const input = raw as Record<string, unknown>;
  const tokens = input.input_tokens;
  if (
    input.hook_event_name !== 'Stop' ||
    typeof input.transcript_path !== 'string' ||
    !Number.isSafeInteger(tokens) ||
    (tokens as number) <= 0
  )
    return input as HookInput;
  // A reply line is a few KB; its usage is near its end.
  const needles = [`"promptTokenCount":${tokens}`, `"totalTokenCount":${tokens}`];
  for (const deadline = Date.now() + waitMs; ; ) {
    const tail = readTail(input.transcript_path);
    if (tail === null || needles.some((needle) => tail.includes(needle)) || Date.now() >= deadline) return input as HookInput;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
