// The words sent to the model for a handoff. The structure comes from the skill body, injected as it
// is (R7); the code adds only the exact path and the fact block (R9, X2).
import type { DocPath } from './doc-path.js';
import { goalInstruction } from './goal.js';
import type { HandoffSkill } from './skill.js';
import { HANDOFF_INSTRUCTION_MARK } from './transcript.js';

export interface InstructionInput {
  readonly skill: HandoffSkill;
  readonly doc: DocPath;
  readonly factsBlock: string;
  /** S1: the next goal, when the person named one. */
  readonly goal?: string;
}

function goalLines(input: InstructionInput): string[] {
  return input.goal === undefined ? [] : ['', ...goalInstruction(input.goal)];
}

/** The self executor's turn: stop, and write the document with the write tool (R9). */
export function selfInstruction(input: InstructionInput): string {
  return [
    `${HANDOFF_INSTRUCTION_MARK} Stop the current work now and write the handoff document.`,
    '',
    `Write it with your write tool to exactly this path (relative to the project root): ${input.doc.relative}`,
    'Do not change any other file. When it is written, reply with one short line.',
    ...goalLines(input),
    '',
    '--- handoff skill ---',
    input.skill.body,
    '--- end of handoff skill ---',
    '',
    'Facts captured by code just now (use them; do not invent others):',
    '',
    input.factsBlock.trim(),
  ].join('\n');
}

/** The one retry (R22): say what was wrong and what to do. */
export function correctiveInstruction(doc: DocPath, reason: string): string {
  return [
    `${HANDOFF_INSTRUCTION_MARK} The handoff document is not done: ${reason}.`,
    `Write the complete document now, every section of the skill, in one write call with path ${doc.relative}.`,
    'Then reply with one short line.',
  ].join('\n');
}

/** The summary executor's system prompt: no tools, the reply is the document (R10). */
export function summarySystemPrompt(skill: HandoffSkill): string {
  return [
    'You write handoff documents for AI coding sessions. You have no tools: your reply IS the',
    'document, in Markdown, with nothing before or after it. Where the skill below speaks of a',
    'write tool or a path, the caller writes your reply to the file for you.',
    '',
    '--- handoff skill ---',
    skill.body,
    '--- end of handoff skill ---',
  ].join('\n');
}

export function summaryRequest(input: InstructionInput & { readonly transcript: string }): string {
  return [
    `${HANDOFF_INSTRUCTION_MARK} Write the handoff document for the session transcribed below.`,
    `It will be saved as ${input.doc.relative}.`,
    ...goalLines(input),
    '',
    'Facts captured by code just now (use them; do not invent others):',
    '',
    input.factsBlock.trim(),
    '',
    '--- transcript ---',
    input.transcript,
    '--- end of transcript ---',
  ].join('\n');
}

export function summaryCorrection(reason: string): string {
  return `${HANDOFF_INSTRUCTION_MARK} That is not a usable document: ${reason}. Reply with the complete document, every section of the skill, and nothing else.`;
}
