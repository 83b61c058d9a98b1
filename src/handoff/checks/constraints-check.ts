// The rules the user stated (and the ones a previous document carried) are under ⚠️, in some
// words: a document that says "none" there although the user said "never add dependencies" loses
// the one thing a successor must not get wrong. Reported with F1, the sections check:
// the section is there but does not hold what it must.
import { documentSections, findSection } from './document-sections.js';

const STOP_WORDS = new Set([
  'never',
  'always',
  'keep',
  'must',
  'only',
  'dont',
  'should',
  'this',
  'that',
  'with',
  'without',
  'from',
  'into',
  'your',
  'make',
  'sure',
  'please',
  'avoid',
  'rule',
  'about',
  'them',
  'they',
  'their',
  'there',
  'what',
  'when',
  'which',
]);

/** The significant words of a sentence (4+ letters, lower case): what tells which rule a sentence is about. */
export function significantWords(text: string): string[] {
  return [...new Set((text.toLowerCase().match(/\p{L}{4,}/gu) ?? []).filter((word) => !STOP_WORDS.has(word)))];
}

/** Most of the rule's words are in the section (a paraphrase keeps them); a rule of no such words (Chinese), its characters. */
export function carries(section: string, rule: string): boolean {
  const text = section.toLowerCase();
  const words = significantWords(rule).filter((word) => !/\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}/u.test(word));
  if (words.length > 0) return words.filter((word) => text.includes(word)).length * 10 >= words.length * 6;
  const core = rule.replace(/[\s\p{P}]/gu, '');
  return core.length === 0 || text.replace(/[\s\p{P}]/gu, '').includes(core.toLowerCase());
}

function constraintsHeading(skillSections: readonly string[]): string | null {
  return skillSections.find((heading) => heading.includes('⚠️')) ?? null;
}

export function checkConstraints(document: string, skillSections: readonly string[], rules: readonly string[]): string[] {
  const heading = constraintsHeading(skillSections);
  if (heading === null || rules.length === 0) return [];
  const section = findSection(documentSections(document), heading);
  // A missing section is the sections check's to report.
  if (section === null) return [];
  return rules
    .filter((rule) => !carries(section.body, rule))
    .map((rule) => `section "${heading}" does not carry the user's rule "${rule}" (write it there, in their words)`);
}
