// ai-zen's hooks for Gemini CLI (X3, issue 24), in the project's own `.gemini/settings.json` — the
// file where Gemini reads a workspace's hooks, in the same `hooks` shape as Claude Code's — and
// only there: ai-zen's three events on Gemini's own (checked with 0.61):
// - Stop is AfterAgent: it runs when the agent has finished a turn, with `stop_hook_active` when
//   the turn was the answer to a block; `{"decision": "block", "reason"}` makes the agent go on
//   with the reason as its next prompt — the self executor's way in, as Claude Code's Stop.
// - PreCompact is PreCompress — but only `trigger: "manual"` (`/compress`). Gemini fires PreCompress
//   with "auto" at the start of EVERY turn, before it checks whether the history is big enough to
//   compress, so an "auto" one says nothing about a compression coming; it is not passed on (it
//   would also land in the middle of the agent writing its own document). The daemon hands over
//   before Gemini's own compression point instead (50% of the window; handoffAt stays 3 below).
// - SessionStart is SessionStart (`hookSpecificOutput.additionalContext` reaches the model).
// Gemini gives a hook milliseconds (`timeout`), and runs a project's hooks only in a folder the user
// trusts (its folder trust); an untrusted folder skips them without a word, so the daemon counts on
// a session's hook only once one has reached it (selfHooksMustAnswer). Merged into what is there,
// idempotent; uninstall removes only ours (recognised by the command's `hook gemini` words), the
// file's mode kept (settings-file.ts).
import { openRegularFileSync } from '../../../fs/open-regular-file.js';
import { closeSync, fstatSync, readSync } from 'node:fs';
import path from 'node:path';
import { HANDOFF_INSTRUCTION_MARK } from '../../../handoff/transcript.js';
import type { AgentHooks, HookEvent, HookInput } from '../agent-module.js';
import {
  hasOurHook,
  hookGroupsFile,
  hookOutputAsItIs,
  type Json,
  type OurHook,
  ourHookMark,
  readSettingsObject,
  withOurHooks,
  withoutOurHooks,
} from '../hook-groups.js';
import { updateSettingsFile } from '../settings-file.js';
import { userTexts } from './gemini-user-text.js';

const SETTINGS = path.join('.gemini', 'settings.json');
/** What marks a hook command as ours. */
const isOurs = ourHookMark('gemini');

/** Gemini's event for each of ai-zen's, and the milliseconds it gives the hook (PreCompact writes the offline document within it). */
const EVENTS: Readonly<Record<HookEvent, { readonly event: string; readonly timeout: number }>> = {
  Stop: { event: 'AfterAgent', timeout: 60_000 },
  PreCompact: { event: 'PreCompress', timeout: 60_000 },
  SessionStart: { event: 'SessionStart', timeout: 10_000 },
};

export function geminiSettingsPath(root: string): string {
  return path.join(root, SETTINGS);
}

function ourHooks(command: (event: HookEvent) => string): OurHook[] {
  return (Object.keys(EVENTS) as HookEvent[]).map((event) => ({
    event: EVENTS[event].event,
    command: command(event),
    timeout: EVENTS[event].timeout,
  }));
}

function withoutOurs(settings: Json): Json {
  const next: Json = { ...settings };
  const hooks = withoutOurHooks(next.hooks, isOurs);
  if (Object.keys(hooks).length === 0) delete next.hooks;
  else next.hooks = hooks;
  return next;
}

/** Our AfterAgent hook is in the project's settings (whether Gemini trusts the folder is another matter). */
export async function geminiHooksInstalled(root: string): Promise<boolean> {
  try {
    return hasOurHook((await readSettingsObject(geminiSettingsPath(root), SETTINGS)).hooks, EVENTS.Stop.event, isOurs);
  } catch {
    return false;
  }
}

/** Gemini's hook stdin in ai-zen's terms; null for what is not ai-zen's to answer (PreCompress "auto", see above). */
export function readGeminiHookInput(raw: unknown): HookInput | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const input = raw as Record<string, unknown>;
  const text = (key: string) => (typeof input[key] === 'string' ? (input[key] as string) : undefined);
  const event = text('hook_event_name');
  if (event === 'PreCompress' && text('trigger') !== 'manual') return null;
  const transcript = text('transcript_path');
  if (transcript === undefined) return null;
  return {
    transcript_path: transcript,
    ...(text('session_id') !== undefined ? { session_id: text('session_id')! } : {}),
    ...(text('cwd') !== undefined ? { cwd: text('cwd')! } : {}),
    ...(stopHookActive(input, transcript)
      ? { stop_hook_active: true }
      : typeof input.stop_hook_active === 'boolean'
        ? { stop_hook_active: false }
        : {}),
    ...(event === 'PreCompress' ? { trigger: 'manual' } : {}),
    ...(text('source') !== undefined ? { source: text('source')! } : {}),
  };
}

/** How much of the transcript's end is read to find the request the turn answered. */
const TAIL_BYTES = 256 * 1024;

/**
 * Whether this AfterAgent ends the turn that answered ai-zen's block (Claude Code's
 * `stop_hook_active`). Gemini says so only while that turn makes no tool call: once the agent has
 * run a tool (its write_file of the document) the turn goes on as a new request, the flag is false
 * again and `prompt` is the person's first request. What the turn answered is in the transcript:
 * the last user message with words in it is ai-zen's reason, which starts with the handoff mark.
 * Read, never written; only its end.
 */
function stopHookActive(input: Record<string, unknown>, transcript: string): boolean {
  if (input.stop_hook_active === true) return true;
  if (input.hook_event_name !== 'AfterAgent' || !isGeminiTranscriptPath(transcript)) return false;
  const lines = readTail(transcript).split('\n').reverse();
  for (const text of lines) {
    let line: unknown;
    try {
      line = JSON.parse(text);
    } catch {
      continue;
    }
    const record = line as { type?: unknown; content?: unknown };
    if (typeof line !== 'object' || line === null || record.type !== 'user') continue;
    const words = userTexts(record.content);
    if (words.length > 0) return words.some((text) => text.startsWith(HANDOFF_INSTRUCTION_MARK));
  }
  return false;
}

function isGeminiTranscriptPath(file: string): boolean {
  return path.isAbsolute(file) && /^session-.+\.jsonl$/.test(path.basename(file)) && path.basename(path.dirname(file)) === 'chats';
}

function readTail(file: string): string {
  let handle: number | null = null;
  try {
    handle = openRegularFileSync(file);
    const size = fstatSync(handle).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(handle, buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } catch {
    return '';
  } finally {
    if (handle !== null) closeSync(handle);
  }
}

export const geminiHooks: AgentHooks = {
  scope: 'repo',
  async install({ root, env, command }) {
    const result = await updateSettingsFile({
      root,
      name: SETTINGS,
      shown: SETTINGS,
      env,
      change: (before) => ({ ...before, hooks: withOurHooks(before.hooks, ourHooks(command), isOurs) }),
    });
    return {
      ...result,
      what: '',
      notes: [
        '  AfterAgent (Stop), PreCompress (/compress only) and SessionStart; Gemini runs a project’s hooks only in a folder you trust',
      ],
    };
  },
  uninstall: ({ root, env }) => updateSettingsFile({ root, name: SETTINGS, shown: SETTINGS, env, change: withoutOurs }),
  settingsFiles: ({ root }) => (root === null ? [] : [hookGroupsFile(geminiSettingsPath(root), SETTINGS, false, isOurs)]),
  readInput: readGeminiHookInput,
  // Gemini reads the answer in Claude Code's shape: `decision`/`reason`, `hookSpecificOutput.additionalContext`.
  writeOutput: hookOutputAsItIs,
  mcp: null,
  statusLine: null,
  trust: null,
};
