// ai-zen's hooks for Gemini CLI, in the project's own `.gemini/settings.json` — the file where
// Gemini reads a workspace's hooks, in the same `hooks` shape as Claude Code's (kit/settings-hooks.ts)
// — and only there: ai-zen's three events on Gemini's own (checked with 0.61):
// - Stop is AfterAgent: it runs when the agent has finished a turn, with `stop_hook_active` when
//   the turn was the answer to a block; `{"decision": "block", "reason"}` makes the agent go on
//   with the reason as its next prompt — the self executor's way in, as Claude Code's Stop.
// - PreCompact is PreCompress — but only `trigger: "manual"` (`/compress`). Gemini fires PreCompress
//   with "auto" at the start of EVERY turn, before it checks whether the history is big enough to
//   compress, so an "auto" one says nothing about a compression coming; it is not passed on (it
//   would also land in the middle of the agent writing its own document). The daemon hands off
//   before Gemini's own compression point instead (50% of the window; handoffAt stays 3 below).
// - SessionStart is SessionStart: its `additionalContext` reaches the model at startup, but after
//   `/clear` Gemini shows only a `systemMessage`; so the successor's breakpoint also goes with its
//   first prompt, through BeforeAgent (ai-zen's UserPromptSubmit), whose context Gemini adds to it.
// Gemini gives a hook milliseconds (`timeout`), and runs a project's hooks only in a folder the user
// trusts (its folder trust); an untrusted folder skips them without a word, so the daemon counts on
// a session's hook only once one has reached it (selfHooksMustAnswer).
import path from 'node:path';
import { HANDOFF_INSTRUCTION_MARK } from '../../../handoff/transcript.js';
import { type AgentHooks, CORE_HOOK_EVENTS, type HookInput } from '../agent-hooks.js';
import { CLAUDE_SHAPE, settingsHooks } from '../kit/settings-hooks.js';
import { readTail } from '../kit/transcript-tail.js';
import { userTexts } from './gemini-user-text.js';

const gemini = settingsHooks({
  ...CLAUDE_SHAPE,
  word: 'gemini',
  file: path.join('.gemini', 'settings.json'),
  // Gemini strips comments before JSON.parse (strip-json-comments): a trailing comma it refuses.
  syntax: 'json-comments',
  names: { Stop: 'AfterAgent', PreCompact: 'PreCompress', UserPromptSubmit: 'BeforeAgent' },
  events: [...CORE_HOOK_EVENTS, 'UserPromptSubmit'],
  milliseconds: true,
  notes: [
    '  AfterAgent (Stop), PreCompress (/compress only), SessionStart and BeforeAgent; Gemini runs a project’s hooks only in a folder you trust',
  ],
});

/** Our AfterAgent hook is in the project's settings (whether Gemini trusts the folder is another matter). */
export const geminiHooksInstalled = (root: string) => gemini.installed({ root, env: {} });

/** Gemini's hook stdin in ai-zen's terms; null for what is not ai-zen's to answer (PreCompress "auto", see above). */
export function readGeminiHookInput(raw: unknown): HookInput | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const input = raw as Record<string, unknown>;
  const text = (key: string) => (typeof input[key] === 'string' ? { [key]: input[key] as string } : {});
  const transcript = input.transcript_path;
  if ((input.hook_event_name === 'PreCompress' && input.trigger !== 'manual') || typeof transcript !== 'string') return null;
  const active = stopHookActive(input, transcript) ? true : typeof input.stop_hook_active === 'boolean' ? false : undefined;
  return {
    transcript_path: transcript,
    ...text('session_id'),
    ...text('cwd'),
    ...(active === undefined ? {} : { stop_hook_active: active }),
    ...(input.hook_event_name === 'PreCompress' ? { trigger: 'manual' } : {}),
    ...text('source'),
  };
}

/**
 * Whether this AfterAgent ends the turn that answered ai-zen's block (Claude Code's
 * `stop_hook_active`). Gemini says so only while that turn makes no tool call: once the agent has
 * run a tool (its write_file of the document) the turn goes on as a new request, the flag is false
 * again and `prompt` is the person's first request. What the turn answered is in the transcript:
 * the last user message with words in it is ai-zen's reason, which starts with the handoff mark.
 */
function stopHookActive(input: Record<string, unknown>, transcript: string): boolean {
  if (input.stop_hook_active === true) return true;
  const isTranscript = path.isAbsolute(transcript) && /^session-.+\.jsonl$/.test(path.basename(transcript));
  if (input.hook_event_name !== 'AfterAgent' || !isTranscript || path.basename(path.dirname(transcript)) !== 'chats') return false;
  for (const text of (readTail(transcript) ?? '').split('\n').reverse()) {
    let record: { type?: unknown; content?: unknown } | null;
    try {
      record = JSON.parse(text);
    } catch {
      continue;
    }
    if (typeof record !== 'object' || record === null || record.type !== 'user') continue;
    const words = userTexts(record.content);
    if (words.length > 0) return words.some((line) => line.startsWith(HANDOFF_INSTRUCTION_MARK));
  }
  return false;
}

export const geminiHooks: AgentHooks = {
  ...gemini.hooks,
  readInput: readGeminiHookInput,
  // Gemini reads the answer in Claude Code's shape: `decision`/`reason`, `hookSpecificOutput.additionalContext`.
  writeOutput: (event, output) =>
    event === 'UserPromptSubmit'
      ? { hookSpecificOutput: { ...(output.hookSpecificOutput as object), hookEventName: 'BeforeAgent' } }
      : output,
  mcp: null,
  statusLine: null,
  trust: null,
};
