// S3: the `handoff` tool — the model may ask to hand its work over to a fresh session when it
// judges its context spent or polluted. It never migrates inside the turn (the handoff turn is
// itself a send, R15): it asks (a person in the chat, or the config with nobody to ask) and, on a
// yes, leaves a request that the extension runs through the one migration service once the turn
// is over.
import { z } from 'zod';
import { defineTool, toolError, toolOk } from '../agent/tools/tool-result.js';
import type { ExecutorName } from '../session/format.js';
import { MAX_GOAL_CHARACTERS } from './goal.js';

export const HANDOFF_TOOL = 'handoff';

/** What the person (or the config) answers: an executor to migrate with, 'skip', or 'not-allowed'. */
export type HandoffToolDecision = ExecutorName | 'skip' | 'not-allowed';

export interface HandoffToolOptions {
  readonly isBusy: () => boolean;
  readonly decide: (goal: string | null) => Promise<HandoffToolDecision>;
  /** Called on a yes: the extension migrates after the turn. */
  readonly request: (request: { executor: ExecutorName; goal: string | null }) => void;
}

const schema = z.strictObject({
  goal: z.string().max(MAX_GOAL_CHARACTERS).optional().describe('What the next session should do first (optional)'),
});

export function createHandoffTool(options: HandoffToolOptions) {
  return defineTool({
    name: HANDOFF_TOOL,
    description:
      'Ask to hand your work over to a fresh session when your context is nearly spent or polluted: a handoff document is written and a new session continues from it. ' +
      'Give an optional goal for the next session. Call it at most once, then end your turn with one short line.',
    schema,
    async run(args) {
      // R15: never during a handoff (the handoff turn must not start another one).
      if (options.isBusy()) return toolError('refused: a handoff is already running', 'handoff refused: one is already running');
      const goal = args.goal?.trim() ? args.goal.trim() : null;
      const decision = await options.decide(goal);
      if (decision === 'not-allowed') {
        return toolError(
          'not allowed: with nobody to ask, the agent may hand off only when the config says "agentMayMigrate": true. Carry on with the task.',
          'handoff: not allowed without a person (agentMayMigrate is off)',
        );
      }
      if (decision === 'skip')
        return toolOk('The person declined the handoff. Carry on with the task in this session.', 'handoff declined');
      options.request({ executor: decision, goal });
      return toolOk(
        'Agreed: the handoff starts as soon as this turn ends. End your turn now with one short line.',
        `handoff agreed (${decision})`,
      );
    },
  });
}
