// ai-zen's hooks for pi. pi has no command hooks: it has extensions (TypeScript modules it loads,
// 0.73), whose events map onto ai-zen's — `agent_end` (the agent stopped and waits for the person)
// is Stop, `session_before_compact` is PreCompact, `session_start` is SessionStart. ai-zen's
// extension is one small file, `$AI_ZEN_HOME/pi/ai-zen-hooks.ts`, that runs `ai-zen-daemon hook pi
// <event>` with Claude Code's hook JSON on stdin; on Stop, when the daemon answers
// `{decision: "block", reason}`, it sends the reason as the person's next message (a follow-up), so
// pi writes its own handoff document and stops again (stop_hook_active). It is named in the
// project's own `.pi/settings.json` (`extensions`), merged into what is there: uninstall removes
// that entry and nothing else; the file keeps its mode. In print and JSON mode (`pi -p`: no UI) its
// Stop says `scripted`, which pi's session file does not say: the daemon writes the document itself
// and the script keeps its last reply as its output.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../../../fs/read-regular-file.js';
import { writeFileInside } from '../../../fs/safe-write.js';
import { aiZenHome, type Env } from '../../../paths.js';
import type { AgentHooks, HookEvent } from '../agent-hooks.js';
import { hookInputAsItIs, hookOutputAsItIs, type Json, readSettingsObject } from '../hook-groups.js';
import { updateSettingsFile } from '../settings-file.js';

const SETTINGS = path.join('.pi', 'settings.json');
const EXTENSION_NAME = 'ai-zen-hooks.ts';
/** The first line of the extension file: what makes it ours. */
const MARK = '// ai-zen: hooks for pi';

export function piExtensionPath(env: Env): string {
  return path.join(aiZenHome(env), 'pi', EXTENSION_NAME);
}

const isOurs = (entry: unknown): boolean =>
  typeof entry === 'string' && path.basename(entry) === EXTENSION_NAME && path.basename(path.dirname(entry)) === 'pi';

/** The extension's source: the commands are the shim's (stable across upgrades), each a shell word already. */
export function piExtensionText(command: (event: HookEvent) => string): string {
  return `${MARK} (written by \`ai-zen-daemon install-hooks pi\`; \`uninstall-hooks pi\` takes it out of a project).
// pi's events as ai-zen's hooks: agent_end → Stop, session_before_compact → PreCompact,
// session_start → SessionStart. A hook never breaks pi: no answer, or any error, is nothing.
import { spawn } from 'node:child_process';

const COMMANDS = ${JSON.stringify({ Stop: command('Stop'), PreCompact: command('PreCompact'), SessionStart: command('SessionStart') }, null, 2)};
const ANSWER_MS = 60_000;
const CONTINUE = 'Continue the work from the handoff document named above.';

function ask(event, input) {
  return new Promise((resolve) => {
    let out = '';
    let child;
    try {
      child = spawn(COMMANDS[event], { shell: true, stdio: ['pipe', 'pipe', 'ignore'] });
    } catch {
      resolve(null);
      return;
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), ANSWER_MS);
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', () => resolve(null));
    child.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(out.trim() === '' ? null : JSON.parse(out));
      } catch {
        resolve(null);
      }
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

function input(ctx, event, extra) {
  const file = ctx.sessionManager.getSessionFile();
  if (!file) return null;
  return { hook_event_name: event, transcript_path: file, session_id: ctx.sessionManager.getSessionId(), cwd: ctx.cwd, ...extra };
}

export default function aiZenHooks(pi) {
  // Set while the agent answers ai-zen's request: its next stop is the one after writing the document.
  let asked = false;
  // Set once this session was handed off: /ai-zen-continue then starts its successor in one step.
  let handedOff = false;
  pi.registerCommand('ai-zen-continue', {
    description: 'Continue in a fresh session from the handoff document ai-zen just wrote',
    handler: async (_args, ctx) => {
      if (!handedOff) {
        ctx.ui.notify('ai-zen: this session was not handed off; there is nothing to continue from', 'info');
        return;
      }
      await ctx.waitForIdle();
      // The new session's start hook gives it the document (the breakpoint); this message sets it to work.
      await ctx.newSession({
        parentSession: ctx.sessionManager.getSessionFile(),
        withSession: async (fresh) => {
          await fresh.sendUserMessage(CONTINUE);
        },
      });
    },
  });
  pi.on('session_start', async (event, ctx) => {
    const hook = input(ctx, 'SessionStart', { source: event.reason });
    const context = hook && (await ask('SessionStart', hook))?.hookSpecificOutput?.additionalContext;
    if (typeof context === 'string' && context !== '')
      pi.sendMessage({ customType: 'ai-zen', content: context, display: false }, { deliverAs: 'nextTurn' });
  });
  pi.on('agent_end', async (_event, ctx) => {
    const active = asked;
    asked = false;
    // A script (pi -p): the daemon writes the document itself; its last reply stays the script's output.
    const hook = input(ctx, 'Stop', ctx.hasUI ? { stop_hook_active: active } : { stop_hook_active: false, scripted: true });
    const answer = hook && (await ask('Stop', hook));
    // The handoff is done: say so on pi's screen, with how to go on.
    if (ctx.hasUI && typeof answer?.systemMessage === 'string') {
      handedOff = true;
      ctx.ui?.notify?.(answer.systemMessage, 'info');
    }
    if (ctx.hasUI && answer?.decision === 'block' && typeof answer.reason === 'string') {
      asked = true;
      pi.sendUserMessage(answer.reason, { deliverAs: 'followUp' });
    }
  });
  pi.on('session_before_compact', async (_event, ctx) => {
    const hook = input(ctx, 'PreCompact', {});
    if (hook) await ask('PreCompact', hook);
  });
}
`;
}

async function updateProjectSettings(root: string, env: Env, change: (before: Json) => Json): Promise<{ file: string; changed: boolean }> {
  await fs.mkdir(path.join(root, '.pi'), { recursive: true });
  const result = await updateSettingsFile({ root, name: SETTINGS, shown: SETTINGS, env, change });
  return { file: path.join(root, SETTINGS), changed: result.changed };
}

function extensionsOf(settings: Json): unknown[] {
  return Array.isArray(settings.extensions) ? settings.extensions : [];
}

/**
 * The commands of ai-zen's hooks in this project's pi settings: those of the extension they name
 * (its COMMANDS), and an extension named but gone — pi then runs no hook of ours.
 */
async function oursIn(settings: Json): Promise<{ commands: string[]; problems: string[] }> {
  const commands: string[] = [];
  const problems: string[] = [];
  for (const entry of extensionsOf(settings).filter(isOurs) as string[]) {
    // Bounded, a regular file only: the path comes from the project's settings.
    const read = await readRegularFile(entry, EXTENSION_MAX_BYTES);
    if (!read.ok && read.missing) {
      problems.push(`names ai-zen's pi extension ${entry}, which no longer exists`);
      continue;
    }
    const named = read.ok ? COMMANDS.exec(read.bytes.toString('utf8'))?.[1] : undefined;
    try {
      commands.push(...Object.values(JSON.parse(named ?? '') as Record<string, unknown>).filter((command) => typeof command === 'string'));
    } catch {
      problems.push(`${entry} is not the extension install-hooks pi writes`);
    }
  }
  return { commands, problems };
}

/** The commands as piExtensionText writes them. */
const COMMANDS = /^const COMMANDS = (\{[\s\S]*?\n\});$/m;
/** The extension is a few kilobytes. */
const EXTENSION_MAX_BYTES = 256 * 1024;

export const piHooks: AgentHooks = {
  scope: 'repo',
  async install({ root, env, command }) {
    const extension = piExtensionPath(env);
    const home = aiZenHome(env);
    await fs.mkdir(path.dirname(extension), { recursive: true, mode: 0o700 });
    const text = piExtensionText(command);
    if ((await fs.readFile(extension, 'utf8').catch(() => null)) !== text)
      await writeFileInside(home, path.relative(home, extension), text, { mode: 0o644 });
    const result = await updateProjectSettings(root, env, (before) => ({
      ...before,
      extensions: [...extensionsOf(before).filter((entry) => !isOurs(entry)), extension],
    }));
    return {
      ...result,
      what: '',
      notes: [`  pi loads ai-zen's extension ${extension} in this project: its Stop (agent_end) lets pi write its own handoff document`],
    };
  },
  async uninstall({ root, env }) {
    const file = path.join(root, SETTINGS);
    const before = await readSettingsObject(file, SETTINGS).catch(() => null);
    if (before === null || !extensionsOf(before).some(isOurs)) return { file, changed: false };
    return updateProjectSettings(root, env, (current) => {
      const next: Json = { ...current };
      const kept = extensionsOf(current).filter((entry) => !isOurs(entry));
      if (kept.length === 0 && Array.isArray(current.extensions)) delete next.extensions;
      else next.extensions = kept;
      return next;
    });
  },
  settingsFiles: ({ root }) => (root === null ? [] : [{ file: path.join(root, SETTINGS), shown: SETTINGS, shared: false, ours: oursIn }]),
  readInput: hookInputAsItIs,
  writeOutput: hookOutputAsItIs,
  mcp: null,
  statusLine: null,
  trust: null,
};

/** Whether this project's pi loads ai-zen's extension (and the extension is there): its Stop lets pi write the document (self). */
export async function piExtensionInstalled(root: string): Promise<boolean> {
  const settings = await readSettingsObject(path.join(root, SETTINGS), SETTINGS).catch(() => null);
  const ours = settings === null ? undefined : extensionsOf(settings).find(isOurs);
  if (typeof ours !== 'string') return false;
  return fs.stat(ours).then(
    (stat) => stat.isFile(),
    () => false,
  );
}
