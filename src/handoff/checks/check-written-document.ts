// The verify step of every executor (R22 and F1–F4): the document exists with enough bytes, then
// passes the four checks against the evidence of this session. Its `reason` is what the corrective
// turn (self) or call (summary) tells the model, naming exactly what is wrong.
import fs from 'node:fs/promises';
import type { HandoffChecks } from '../../session/format.js';
import type { ExecutorInput } from '../executors/types.js';
import { verifyDocument } from '../verify-doc.js';
import { localCommandEnvironment } from './command-environment.js';
import { evidenceFromMessages } from './evidence.js';
import { allProblems, checkDocument, checksPassed } from './run-checks.js';

export type CheckedDocument =
  | { readonly ok: true; readonly bytes: number; readonly checks: HandoffChecks }
  | { readonly ok: false; readonly reason: string; readonly bytes: number; readonly checks: HandoffChecks | null };

/** Runs the four checks on the document as written now. */
export async function checksOfWrittenDocument(input: ExecutorInput): Promise<HandoffChecks> {
  const document = await fs.readFile(input.doc.absolute, 'utf8');
  return checkDocument({
    document,
    sections: input.skill.sections,
    evidence: input.evidence ?? evidenceFromMessages(input.messages, input.root),
    facts: input.facts,
    environment: input.commandEnvironment ?? localCommandEnvironment(input.root),
  });
}

export async function verifyAndCheck(input: ExecutorInput): Promise<CheckedDocument> {
  const verified = await verifyDocument(input.root, input.doc);
  if (!verified.ok) return { ok: false, reason: verified.reason, bytes: verified.bytes, checks: null };
  const checks = await checksOfWrittenDocument(input);
  if (checksPassed(checks)) return { ok: true, bytes: verified.bytes, checks };
  return { ok: false, reason: allProblems(checks).join('; '), bytes: verified.bytes, checks };
}
