// The four fidelity checks (F1–F4) over one document: what each found wrong, in words a model and a
// person can act on. The result is what the `handoff` line records as `checks` (empty lists: passed).
import type { Facts } from '../../probe/facts.js';
import type { HandoffChecks } from '../../session/format.js';
import type { HandoffEvidence } from './evidence.js';
import { checkConstraints } from './constraints-check.js';
import { checkFacts } from './facts-check.js';
import { checkFiles } from './files-check.js';
import { checkFirstSteps, type CommandEnvironment } from './first-steps-check.js';
import { checkSections } from './sections-check.js';

export interface CheckDocumentInput {
  readonly document: string;
  /** The skill in force's section headings, in order (R7). */
  readonly sections: readonly string[];
  readonly evidence: HandoffEvidence;
  readonly facts: Facts;
  readonly environment: CommandEnvironment;
}

export function checkDocument(input: CheckDocumentInput): HandoffChecks {
  return {
    sections: [
      ...checkSections(input.document, input.sections),
      ...checkConstraints(input.document, input.sections, input.evidence.rules ?? []),
    ],
    facts: checkFacts(input.document, input.facts),
    files: checkFiles(
      input.document,
      input.evidence.changedFiles,
      input.evidence.knownFiles
        ? { named: input.evidence.knownFiles, pathExists: (file) => input.environment.pathExists(file) }
        : undefined,
    ),
    commands: checkFirstSteps(input.document, input.sections, input.environment),
  };
}

export function checksPassed(checks: HandoffChecks): boolean {
  return checks.sections.length === 0 && checks.facts.length === 0 && checks.files.length === 0 && checks.commands.length === 0;
}

export { checkProblems as allProblems } from './describe-checks.js';
