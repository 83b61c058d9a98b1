// `self` (R9): the live agent writes the document in its own session with its own write tool.
// The instruction goes in as a turn; HandoffGuardPlugin is on for that turn only (R12) and comes off
// in a `finally`, whatever happens. The turn stays in the history (R17).
import { withOneShotPlugin } from '../../agent/plugins/run-plugins.js';
import type { Plugin } from '../../agent/types.js';
import { AiZenError } from '../../errors.js';
import type { HandoffCost } from '../../session/format.js';
import { HandoffGuardPlugin } from '../handoff-guard.js';
import { correctiveInstruction, selfInstruction } from '../instruction.js';
import { verifyAndCheck } from '../checks/check-written-document.js';
import { addCost, NO_COST, type Executor, type ExecutorInput, type ExecutorOutcome } from './types.js';

/** What a handoff turn reports; the runtime's TurnResult has these fields. */
export interface HandoffTurnResult {
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** The part of the agent the self executor drives. */
export interface SelfExecutorAgent {
  send(text: string, options?: { signal?: AbortSignal }): Promise<HandoffTurnResult>;
  use(plugin: Plugin): () => void;
}

export interface SelfExecutorOptions {
  readonly agent: SelfExecutorAgent;
  /** The names of the agent's tools; without `write` there is nothing to write with (R11). */
  readonly toolNames: readonly string[];
}

function turnCost(result: HandoffTurnResult): HandoffCost {
  return { requests: result.requests, prompt_tokens: result.promptTokens, completion_tokens: result.completionTokens };
}

export function createSelfExecutor(options: SelfExecutorOptions): Executor {
  return {
    name: 'self',
    async run(input: ExecutorInput): Promise<ExecutorOutcome> {
      if (!options.toolNames.includes('write')) return { ok: false, reason: 'the agent has no write tool', cost: NO_COST };
      const guard = new HandoffGuardPlugin({ root: input.root, doc: input.doc });
      return withOneShotPlugin(options.agent, guard, () => writeDocument(options.agent, input));
    },
  };
}

/** The handoff turn, and one corrective turn if the document does not pass the check. */
async function writeDocument(agent: SelfExecutorAgent, input: ExecutorInput): Promise<ExecutorOutcome> {
  let cost = NO_COST;
  try {
    const sendOptions = input.signal ? { signal: input.signal } : {};
    cost = addCost(cost, turnCost(await agent.send(selfInstruction(input), sendOptions)));
    // R22 and F1–F4: a document that is missing, short or fails a check gets one corrective turn naming what is wrong.
    let check = await verifyAndCheck(input);
    if (check.ok) return { ok: true, cost, bytes: check.bytes };
    input.logger.info({ doc: input.doc.relative, reason: check.reason }, 'self handoff: retrying once');
    cost = addCost(cost, turnCost(await agent.send(correctiveInstruction(input.doc, check.reason), sendOptions)));
    check = await verifyAndCheck(input);
    if (check.ok) return { ok: true, cost, bytes: check.bytes };
    return { ok: false, reason: `${check.reason} after one retry`, cost };
  } catch (error) {
    // The user aborting the handoff ends it; anything else the model or a guard did is a downgrade (R11).
    if (AiZenError.isInstance(error) && error.code === 'aborted') throw error;
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { ok: false, reason: `the handoff turn failed: ${message}`, cost };
  }
}
