// The `agent-hook-input` request: an agent's hook input as the agent sent it, read here as that
// agent's hooks read it (its AgentModule's readInput), answered as `agent-hook` answers, and shaped
// for the agent (writeOutput). Done in the daemon so that the hook process every agent turn waits on
// loads no agent's code and no zod (the lean entry, cli/ai-zen-hook.ts).
import { z } from 'zod';
import type { RequestParams } from '../../ipc/protocol.js';
import { type AgentHooks, HOOK_EVENTS, type HookEvent } from '../sources/agent-module.js';
import { agentModule } from '../sources/index.js';
import { isOtherAgentsPayload } from '../sources/other-agent-payload.js';
import { replyHead } from '../watching/session-source.js';

/** The fields of a hook's input ai-zen uses, after the agent's own readInput. */
export const HookInput = z.looseObject({
  transcript_path: z.string().optional(),
  session_id: z.string().optional(),
  cwd: z.string().optional(),
  stop_hook_active: z.boolean().optional(),
  trigger: z.string().optional(),
  source: z.string().optional(),
  scripted: z.boolean().optional(),
  last_assistant_message: z.string().optional(),
});
export type HookInput = z.infer<typeof HookInput>;

/** The `agent-hook` request this hook input makes, or null when it is not one ai-zen answers. */
export function agentHookParams(
  agent: string,
  event: HookEvent,
  input: HookInput,
  agentPid: number | null,
): RequestParams<'agent-hook'> | null {
  const module = agentModule(agent);
  if (!module || !input.transcript_path) return null;
  return {
    agent: module.name as RequestParams<'agent-hook'>['agent'],
    event,
    transcriptPath: input.transcript_path,
    ...(input.session_id ? { sessionId: input.session_id } : {}),
    ...(input.stop_hook_active !== undefined ? { stopHookActive: input.stop_hook_active } : {}),
    ...(input.trigger ? { trigger: input.trigger } : {}),
    ...(input.source ? { source: input.source } : {}),
    ...(input.scripted ? { scripted: true } : {}),
    ...(input.last_assistant_message ? { lastReply: replyHead(input.last_assistant_message) } : {}),
    ...(agentPid !== null ? { agentPid } : {}),
  };
}

/**
 * The `agent-hook` request an agent's raw hook input makes, read as that agent's hooks read it, and
 * its working folder; null when it is not one ai-zen answers. Both hook paths read input through it:
 * the daemon's `agent-hook-input` and the full CLI's `hook`.
 */
export async function hookRequestOf(
  agent: string,
  event: string,
  raw: unknown,
  agentPid: number | null,
): Promise<{ readonly hooks: AgentHooks; readonly cwd: string | undefined; readonly request: RequestParams<'agent-hook'> } | null> {
  const hooks = agentModule(agent)?.hooks;
  if (!hooks || !isHookEvent(event)) return null;
  // Another agent running this agent's hooks (Cursor runs Claude Code's from .claude/settings*.json) is not asked,
  // told or blocked: its session is not one ai-zen watches, and a block would hold its stop.
  if (isOtherAgentsPayload(raw, agent, event)) return null;
  const input = HookInput.safeParse((await hooks.readInput(raw)) ?? {});
  if (!input.success) return null;
  const request = agentHookParams(agent, event, input.data, agentPid);
  return request === null ? null : { hooks, cwd: input.data.cwd, request };
}

export function isHookEvent(event: string): event is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(event);
}

/** Answers the raw hook input; `answer` is the daemon's `agent-hook` handler. */
export async function answerHookInput(
  params: RequestParams<'agent-hook-input'>,
  answer: (params: RequestParams<'agent-hook'>) => Promise<unknown>,
): Promise<{ output: Record<string, unknown> | null }> {
  const read = await hookRequestOf(params.agent, params.event, params.input, params.agentPid ?? null);
  if (read === null) return { output: null };
  const reply = (await answer(read.request)) as { output?: unknown } | null;
  const output = reply && typeof reply.output === 'object' && reply.output !== null ? (reply.output as Record<string, unknown>) : null;
  return { output: output ? read.hooks.writeOutput(read.request.event, output) : null };
}
