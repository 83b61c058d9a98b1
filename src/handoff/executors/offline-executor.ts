// `offline` (X1): no model at all. The document is built by code from the transcript and the facts,
// with the sections of the skill in force (R7), and written to the path. The last step of the
// one-way downgrade (R11), and the first when no model is configured.
import { writeFileInside } from '../../fs/safe-write.js';
import { localCommandEnvironment } from '../checks/command-environment.js';
import { commandProblems } from '../checks/first-steps-check.js';
import { redactMessages } from '../redact-messages.js';
import { verifyDocument } from '../verify-doc.js';
import { buildOfflineDocument } from './offline-document.js';
import { NO_COST, type Executor, type ExecutorInput, type ExecutorOutcome } from './types.js';

export function createOfflineExecutor(): Executor {
  return {
    name: 'offline',
    async run(input: ExecutorInput): Promise<ExecutorOutcome> {
      const environment = input.commandEnvironment ?? localCommandEnvironment(input.root);
      const document = buildOfflineDocument({
        sections: input.skill.sections,
        // Scanned before any folding; a scanner that cannot run leaves it to the seal,
        // which then keeps the document from any commit.
        messages: await redactMessages(input.messages).catch(() => input.messages),
        facts: input.facts,
        factsBlock: input.factsBlock,
        sessionId: input.sessionId,
        sessionFile: input.sessionFile,
        ...(input.goal !== undefined ? { goal: input.goal } : {}),
        ...(input.places ? { places: input.places } : {}),
        ...(input.previous !== undefined ? { previous: input.previous } : {}),
        ...(input.earlier ? { earlier: input.earlier } : {}),
        isRunnable: (command) => commandProblems(command, environment).length === 0,
      });
      try {
        await writeFileInside(input.root, input.doc.relative, document);
      } catch (error) {
        const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
        return { ok: false, reason: `could not write the document: ${message}`, cost: NO_COST };
      }
      const check = await verifyDocument(input.root, input.doc);
      return check.ok ? { ok: true, cost: NO_COST, bytes: check.bytes } : { ok: false, reason: check.reason, cost: NO_COST };
    },
  };
}
