// F1 Sections: every section of the skill in force is in the document, in the skill's order, each
// with something under it. The headings are the skill's (R7).
import { documentSections, headingMatches } from './document-sections.js';

/** What failed, one sentence per problem; empty when the check passed. */
export function checkSections(document: string, skillSections: readonly string[]): string[] {
  const sections = documentSections(document);
  const problems: string[] = [];
  let cursor = 0;
  let previous: string | null = null;
  for (const heading of skillSections) {
    const after = sections.findIndex((section, index) => index >= cursor && headingMatches(heading, section.heading));
    if (after >= 0) {
      if (sections[after]!.body.trim() === '') problems.push(`section "${heading}" is empty (write "none" if there is nothing to say)`);
      cursor = after + 1;
      previous = heading;
      continue;
    }
    const anywhere = sections.find((section) => headingMatches(heading, section.heading));
    if (anywhere) problems.push(`section "${heading}" is out of order (it must come after "${previous ?? 'the title'}")`);
    else problems.push(`section "${heading}" is missing`);
  }
  return problems;
}
