// The `agent-hook-input` request: an agent's hook input as the agent sent it, read here as that
// agent's hooks read it (its AgentModule's readInput), answered as `agent-hook` answers, and shaped
// for the agent (writeOutput). Done in the daemon so that the hook process every agent turn waits on
// loads no agent's code and no zod (the lean entry, cli/ai-zen-hook.ts).
import { z } from 'zod';
import type { RequestParams } from '../../ipc/protocol.js';
import { HOOK_EVENTS, type HookEvent } from '../sources/agent-module.js';
import { agentModule } from '../sources/index.js';
import { isOtherAgentsPayload } from '../sources/other-agent-payload.js';

/** The fields of a hook's input ai-zen uses, after the agent's own readInput. */
export const HookInput = z.looseObject({
  transcript_path: z.string().optional(),
  session_id: z.string().optional(),
  cwd: z.string().optional(),
  stop_hook_active: z.boolean().optional(),
  trigger: z.string().optional(),
  source: z.string().optional(),
  scripted: z.boolean().optional(),
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
    ...(agentPid !== null ? { agentPid } : {}),
  };
}

/** Answers the raw hook input; `answer` is the daemon's `agent-hook` handler. */
export async function answerHookInput(
  params: RequestParams<'agent-hook-input'>,
  answer: (params: RequestParams<'agent-hook'>) => Promise<unknown>,
): Promise<{ output: Record<string, unknown> | null }> {
  const hooks = agentModule(params.agent)?.hooks;
  if (!hooks || !(HOOK_EVENTS as readonly string[]).includes(params.event)) return { output: null };
  if (isOtherAgentsPayload(params.input, params.agent, params.event)) return { output: null };
  const input = HookInput.safeParse((await hooks.readInput(params.input)) ?? {});
  if (!input.success) return { output: null };
  const request = agentHookParams(params.agent, params.event, input.data, params.agentPid ?? null);
  if (request === null) return { output: null };
  const reply = (await answer(request)) as { output?: unknown } | null;
  const output = reply && typeof reply.output === 'object' && reply.output !== null ? (reply.output as Record<string, unknown>) : null;
  return { output: output ? hooks.writeOutput(params.event, output) : null };
}
