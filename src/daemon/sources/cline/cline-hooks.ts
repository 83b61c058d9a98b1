// ai-zen's hook for Cline CLI (checked with 3.0.65). Cline's hooks are executables named after their
// event in a hooks folder — the project's `.clinerules/hooks/` and `.cline/hooks/`, the user's
// `~/.cline/hooks/` (CLINE_DIR) and `~/Documents/Cline/Hooks/` — run with a JSON payload on stdin,
// every file of an event in turn. Of its events only PreToolUse and PostToolUse wait for the hook and
// take its answer (`contextModification`, shown to the model as a `<hook_context>` message before
// its next request); TaskStart and TaskResume run detached (3.0.65's CLI never asks for them to
// block), TaskComplete, UserPromptSubmit and SessionShutdown too, and PreCompact is never run. So
// ai-zen installs one hook, `.clinerules/hooks/PostToolUse`, as its Stop: past the threshold, the
// first tool call's answer asks the model to write its own document (self); the hook of the call
// that writes it has the daemon verify and commit it. A turn that calls no tool after the crossing
// runs no hook: the daemon writes the document itself at its deadline.
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AiZenError } from '../../../errors.js';
import { openRegularFile } from '../../../fs/open-regular-file.js';
import { writeFileInside } from '../../../fs/safe-write.js';
import type { Env } from '../../../paths.js';
import type { AgentHooks, HookEvent, HookInput, HookScriptFile } from '../agent-hooks.js';
import { clineSessionsDir, MESSAGES_SUFFIX, SESSION_ID } from './cline-paths.js';

/** Ours, where Cline looks for a project's hooks; its name is the event it answers. */
const HOOK = path.join('.clinerules', 'hooks', 'PostToolUse');
/** The line that says a hook script is ours (the person's own of that name never has it). */
const MARK = "# ai-zen's Cline hook";
/** Where the script runs ai-zen: the only line starting with `exec `. */
const EXEC = /^exec (.+)$/m;
/** A hook script is a few hundred bytes; more is not ours. */
const SCRIPT_MAX_BYTES = 64 * 1024;

function scriptText(command: string): string {
  return [
    '#!/bin/sh',
    `${MARK}, written by ai-zen-daemon install-hooks cline (uninstall-hooks cline removes it).`,
    '# Cline runs it after each tool call; past the threshold, its answer asks the model to write its handoff document.',
    `exec ${command}`,
    '',
  ].join('\n');
}

/** The command a script of ours runs; null: not ours (the person's own hook of that name). */
function commandOf(text: string): { readonly command: string | null } | null {
  if (!text.split('\n', 3).some((line) => line.startsWith(MARK))) return null;
  return { command: EXEC.exec(text)?.[1]?.trim() ?? null };
}

/** The script at `file`, read only when it is a regular file itself (a cloned repo can plant a link or a FIFO there). */
async function readScript(file: string): Promise<{ readonly text: string; readonly mode: number } | 'missing' | 'not a file'> {
  let handle: FileHandle;
  try {
    handle = await openRegularFile(file);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'not a file';
  }
  try {
    const stat = await handle.stat();
    if (stat.size > SCRIPT_MAX_BYTES) return 'not a file';
    return { text: await handle.readFile('utf8'), mode: stat.mode & 0o7777 };
  } finally {
    await handle.close();
  }
}

const place = (root: string): HookScriptFile => ({
  file: path.join(root, HOOK),
  shown: HOOK,
  shared: false,
  format: 'script',
  async ours(text) {
    const ours = commandOf(text);
    if (ours === null) return { commands: [], problems: [] };
    if (ours.command === null) return { commands: [], problems: [`${HOOK} is not the hook install-hooks cline writes`] };
    return { commands: [ours.command], problems: [] };
  },
});

export const clineHooks: AgentHooks = {
  scope: 'repo',
  async install({ root, command }) {
    const file = path.join(root, HOOK);
    const text = scriptText(command('Stop'));
    const before = await readScript(file);
    if (before === 'not a file' || (before !== 'missing' && commandOf(before.text) === null))
      throw new AiZenError(
        'usage',
        `${HOOK} is a hook of yours: ai-zen does not overwrite it (Cline runs every hook file of an event — rename yours to PostToolUse.sh, then install-hooks cline again)`,
      );
    if (before !== 'missing' && before.text === text) return { file, changed: false, what: '', notes: [] };
    await fs.mkdir(path.dirname(file), { recursive: true });
    // A mode the person gave ours is kept; a new one is executable, as Cline's hooks are.
    await writeFileInside(root, HOOK, text, { mode: before === 'missing' ? 0o755 : before.mode });
    return {
      file,
      changed: true,
      what: '',
      notes: [
        "  Cline runs it after each tool call: past the threshold it asks the model to write its own handoff document (Cline has no hook at a turn's end; a turn with no tool call after the crossing is handed off by ai-zen itself)",
      ],
    };
  },
  async uninstall({ root }) {
    const file = path.join(root, HOOK);
    const before = await readScript(file);
    if (before === 'missing' || before === 'not a file' || commandOf(before.text) === null) return { file, changed: false };
    await fs.rm(file);
    return { file, changed: true };
  },
  settingsFiles: ({ root }) => (root === null ? [] : [place(root)]),
  readInput: (raw) => readClineHookInput(raw, process.env),
  writeOutput: clineHookOutput,
  mcp: null,
  statusLine: null,
  trust: null,
};

/** Whether this project's Cline runs ai-zen's PostToolUse hook: the session may write its own document (self). */
export async function clineHookInstalled(root: string): Promise<boolean> {
  const script = await readScript(path.join(root, HOOK));
  return typeof script === 'object' && (commandOf(script.text)?.command ?? null) !== null;
}

/**
 * Cline's hook payload in ai-zen's terms: its `sessionContext.rootSessionId` is the session's id (its
 * folder; `taskId` is the conversation's, another id), its `workspaceRoots` the folder it works in.
 * Whether this PostToolUse answers ai-zen's ask (Claude Code's `stop_hook_active`) is what the tool
 * call just made did: it named a handoff document, and that file was written during the call. (The
 * session file does not say it in time: Cline keeps the ask's `<hook_context>` there only later.)
 */
export async function readClineHookInput(raw: unknown, env: Env): Promise<HookInput | null> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const input = raw as Record<string, unknown>;
  // A subagent's tool calls: its context would reach the subagent's model, not the session's.
  if (typeof input.parent_agent_id === 'string' && input.parent_agent_id !== '') return null;
  const context = input.sessionContext as { rootSessionId?: unknown } | undefined;
  const id = context?.rootSessionId;
  if (typeof id !== 'string' || !SESSION_ID.test(id)) return null;
  const transcript = path.join(clineSessionsDir(env), id, `${id}${MESSAGES_SUFFIX}`);
  const roots = input.workspaceRoots;
  const cwd = Array.isArray(roots) && typeof roots[0] === 'string' && path.isAbsolute(roots[0]) ? roots[0] : null;
  return {
    transcript_path: transcript,
    session_id: id,
    ...(cwd === null ? {} : { cwd }),
    stop_hook_active: cwd !== null && (await wroteHandoffDocument(input.tool_result, cwd)),
  };
}

/** A handoff document's path as a tool call's input names it (a command, a patch, an editor's path). */
const DOCUMENT_NAMED = /[^\s"'`\\]*\.ai-zen\/handoffs\/[^\s"'`\\/]+\.md/g;
/** A file's time may lag the call's start a little (the clock's grain, the file system's). */
const CLOCK_SLACK_MS = 2_000;

async function wroteHandoffDocument(result: unknown, cwd: string): Promise<boolean> {
  if (typeof result !== 'object' || result === null) return false;
  const call = result as { input?: unknown; startedAt?: unknown };
  const started = typeof call.startedAt === 'string' ? Date.parse(call.startedAt) : Number.NaN;
  if (!Number.isFinite(started)) return false;
  for (const named of new Set(JSON.stringify(call.input ?? null).match(DOCUMENT_NAMED) ?? [])) {
    const stat = await fs.lstat(path.resolve(cwd, named)).catch(() => null);
    if (stat?.isFile() && stat.mtimeMs >= started - CLOCK_SLACK_MS) return true;
  }
  return false;
}

/** The daemon's answer (Claude Code's shape) as Cline reads a hook's: the text for the model in `contextModification`. */
export function clineHookOutput(_event: HookEvent, output: Record<string, unknown>): Record<string, unknown> | null {
  const specific = output.hookSpecificOutput as { additionalContext?: unknown } | undefined;
  const text =
    output.decision === 'block' && typeof output.reason === 'string'
      ? output.reason
      : typeof output.systemMessage === 'string'
        ? output.systemMessage
        : typeof specific?.additionalContext === 'string'
          ? specific.additionalContext
          : null;
  return text === null ? null : { contextModification: text };
}
