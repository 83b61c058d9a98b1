// What `ai-zen-daemon hook <agent> <event>` does (X3): reads the agent's hook JSON on
// stdin, asks the repo's daemon, and returns the answer shaped for the agent, or null. Shared by the
// full CLI's `hook` command and the lean entry the shim runs (ai-zen-hook.ts): a hook never fails
// the agent, so the callers print nothing on any error.
import { appendFile } from 'node:fs/promises';
import { hookRequestOf } from '../../daemon/process/hook-input-answer.js';
import { AGENT_MODULES } from '../../daemon/sources/index.js';
import { connectIpc } from '../../ipc/client.js';
import { socketPathFor } from '../../ipc/socket-path.js';
import type { Env } from '../../paths.js';
import { agentProcessOf } from '../../probe/agent-process.js';
import { daemonRoot } from '../shared/daemon-client.js';
import { readBounded } from './hook-forward.js';

/** The words of the agents whose hooks ai-zen installs and answers (`install-hooks <word>`, `hook <word> <event>`). */
export const HOOK_AGENTS = AGENT_MODULES.filter((agent) => agent.hooks !== null).map((agent) => agent.word);
/** Under the hook's own timeout in the settings (60 s): the answer or nothing. */
const HOOK_ANSWER_MS = 50_000;

export interface HookIo {
  readonly cwd: string;
  readonly env: Env;
  readonly stdin: NodeJS.ReadableStream;
}

export async function answerHook(agent: string, event: string, io: HookIo): Promise<Record<string, unknown> | null> {
  if (!HOOK_AGENTS.includes(agent)) return null;
  const raw: unknown = JSON.parse(await readInput(io.stdin));
  // The agent runs the hook (through a shell or two): its process is the one `/clear` keeps.
  const read = await hookRequestOf(agent, event, raw, agentProcessOf(process.ppid));
  if (read === null) return null;
  const { hooks, request } = read;
  const shaped = (output: Record<string, unknown> | null): Record<string, unknown> | null =>
    output ? hooks.writeOutput(request.event, output) : output;
  const root = await daemonRoot(read.cwd ?? io.cwd, io.env);
  // A daemon that is not there refuses at once; one that is slow to accept (a loaded machine) is waited for on
  // Stop and PreCompact, where a missed answer is a missed handoff; a session's start and a prompt wait less.
  const connectMs = event === 'SessionStart' || event === 'UserPromptSubmit' ? 2_000 : 10_000;
  const client = await connectIpc({ socketPath: socketPathFor(root, { env: io.env }), repoRoot: root, timeoutMs: connectMs }).catch(
    (error: unknown) => {
      // Unprotected is never silent: the session is told, once at its start, how to fix it.
      if (event === 'SessionStart') return null;
      throw error;
    },
  );
  if (client === null) {
    // An enabled repo: this session's start brings its daemon up, detached, without waiting for it.
    // Loaded only here: the daemon launcher (and its logger) is most of the CLI, and every other hook run skips it.
    const { startDaemonIfEnabled } = await import('../shared/daemon-autostart.js');
    if ((await startDaemonIfEnabled(root, io.env)) !== 'not-enabled') return null;
    // A repo the user uninstalled ai-zen from is not ai-zen's to protect: a hook still run there (Codex's, user-wide) is quiet.
    const { uninstalledRepos } = await import('./uninstalled-repos.js');
    return shaped((await uninstalledRepos(io.env)).includes(root) ? null : unprotected(root));
  }
  try {
    const reply = await client.request<{ output: Record<string, unknown> | null }>('agent-hook', request, { timeoutMs: HOOK_ANSWER_MS });
    return shaped(reply && typeof reply === 'object' && reply.output && typeof reply.output === 'object' ? reply.output : null);
  } finally {
    await client.close().catch(() => {});
  }
}

/**
 * answerHook for the two entries that run it (the lean one and the full CLI's `hook`): any error is
 * null, silent for the agent; AI_ZEN_HOOK_DEBUG names a file that gets each answer or failure (for a person
 * debugging a hook).
 */
export async function answerHookQuietly(agent: string, event: string, io: HookIo): Promise<Record<string, unknown> | null> {
  const debug = io.env.AI_ZEN_HOOK_DEBUG;
  return answerHook(agent, event, io).then(
    async (answer) => {
      if (debug) await appendFile(debug, `${new Date().toISOString()} hook ${agent} ${event}: ${JSON.stringify(answer)}\n`).catch(() => {});
      return answer;
    },
    async (error: unknown) => {
      if (debug) await appendFile(debug, hookFailureLine(agent, event, error)).catch(() => {});
      return null;
    },
  );
}

function hookFailureLine(agent: string, event: string, error: unknown): string {
  return `${new Date().toISOString()} hook ${agent} ${event}: ${error instanceof Error ? error.stack : String(error)}\n`;
}

/** The one line of context a session gets at its start in a repo whose daemon is not running. */
function unprotected(root: string): Record<string, unknown> {
  return {
    hookSpecificOutput: {
      hookEventName: 'SessionStart',
      additionalContext: `ai-zen: this repo (${root}) is NOT protected — no ai-zen daemon runs here, so nothing hands this session over when its context fills up. Tell the user; the fix is: ai-zen-daemon start (or ai-zen-daemon enable, to start it with every session here)`,
    },
  };
}

async function readInput(stream: NodeJS.ReadableStream): Promise<string> {
  const bytes = await readBounded(stream);
  if (bytes === null) throw new Error('hook input too large');
  return bytes.toString('utf8');
}
