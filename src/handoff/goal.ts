// The next goal a handoff is written towards (S1). It is the person's own words: trimmed, one
// paragraph at most, and never empty; the code never rephrases it, it only says where it goes.
import { AiZenError } from '../errors.js';
import { MAX_GOAL_CHARACTERS } from '../ipc/protocol.js';

export { MAX_GOAL_CHARACTERS };

/** The goal as it is recorded and injected; undefined when none was given. Throws AiZenError('usage') when it is too long. */
export function normaliseGoal(goal: string | undefined | null): string | undefined {
  if (goal === undefined || goal === null) return undefined;
  const text = goal.replace(/\s+/g, ' ').trim();
  if (text === '') return undefined;
  if (text.length > MAX_GOAL_CHARACTERS) {
    throw new AiZenError(
      'usage',
      `the goal is ${text.length} characters long; keep it under ${MAX_GOAL_CHARACTERS} (the document holds the details)`,
    );
  }
  return text;
}

/** The lines an executor's instruction gains when there is a goal: 🎯 states it, 📋 and 🔔 lead towards it. */
export function goalInstruction(goal: string): string[] {
  return [
    `The successor's next goal, in the user's words: "${goal}"`,
    'Write the document towards that goal: the 🎯 task goal section states it first, as given; the 📋 not-done',
    'section puts first what leads to it; the 🔔 first steps are the commands that start on it.',
  ];
}
