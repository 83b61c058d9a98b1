// The nine section headings of a handoff document, read from the template the code writes by (as
// the code reads its own), so a test's fake document and the product never keep two lists.
import { MINIMAL_TEMPLATE } from '../../src/handoff/minimal-template.js';
import { sectionHeadings } from '../../src/handoff/parse-skill.js';

export const HANDOFF_SECTIONS: readonly string[] = sectionHeadings(MINIMAL_TEMPLATE);
