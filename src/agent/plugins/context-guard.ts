// ContextGuardPlugin (R14): refuses a request whose prompt would exceed the window × 1.5, or × 2
// while the service is busy with a handoff — relaxed then, never removed. Nothing is sent and
// nothing is lost; the person can migrate and carry on.
import { estimatePromptTokens } from '../estimate-tokens.js';
import type { AgentView, Plugin, Verdict } from '../types.js';

export const CONTEXT_GUARD_FACTOR = 1.5;
export const CONTEXT_GUARD_BUSY_FACTOR = 2;

export interface ContextGuardOptions {
  /** True while a handoff is running (its turn may need a little more room). */
  readonly isBusy: () => boolean;
}

export class ContextGuardPlugin implements Plugin {
  readonly name = 'context-guard';

  constructor(private readonly options: ContextGuardOptions) {}

  beforeRequest({ agent }: { agent: AgentView }): Verdict {
    const busy = this.options.isBusy();
    const factor = busy ? CONTEXT_GUARD_BUSY_FACTOR : CONTEXT_GUARD_FACTOR;
    const limit = Math.floor(agent.maxContextTokens * factor);
    const estimate = estimatePromptTokens(agent);
    if (estimate <= limit) return undefined;
    return {
      refuse:
        `context guard: the next request would be about ${estimate} tokens, over ${limit} (${factor}× the ${agent.maxContextTokens}-token window${busy ? ' during a handoff' : ''}); ` +
        'nothing was sent and nothing is lost — run `ai-zen migrate` to carry on in a fresh session',
    };
  }
}
