// A handoff document split into its `## ` sections (outside fenced code), and how a document
// heading is matched to a skill heading: by the skill heading's marker (its leading emoji) where it
// has one, else by its words (R7: the headings come from the skill, this code keeps no list).

export interface DocumentSection {
  /** The heading text without `## `. */
  readonly heading: string;
  /** Everything under the heading up to the next `#`/`##` heading. */
  readonly body: string;
}

/** The `## ` sections of a Markdown document, in order; deeper headings stay inside their section's body. */
export function documentSections(text: string): DocumentSection[] {
  const sections: { heading: string; lines: string[] }[] = [];
  let fence: string | null = null;
  for (const line of text.replace(/\r\n/g, '\n').split('\n')) {
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch?.[1]) {
      const marker = fenceMatch[1];
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
    } else if (fence === null) {
      const heading = /^ {0,3}(#{1,2}) +(.+?)\s*#*\s*$/.exec(line);
      if (heading?.[1] && heading[2]) {
        // A `# ` title ends the section before it but starts none of the skill's.
        if (heading[1] === '##') sections.push({ heading: heading[2], lines: [] });
        else sections.push({ heading: '', lines: [] });
        continue;
      }
    }
    sections.at(-1)?.lines.push(line);
  }
  return sections
    .filter((section) => section.heading !== '')
    .map((section) => ({ heading: section.heading, body: section.lines.join('\n') }));
}

/** Emoji presentation selectors and joiners do not change which marker a heading has. */
function bareMarker(text: string): string {
  return text.replace(/[\uFE0E\uFE0F\u200D]/g, '');
}

/** The heading's leading marker (an emoji or symbol before the first letter or digit), or null. */
export function headingMarker(heading: string): string | null {
  const match = /^([^\p{L}\p{N}\s]+)\s/u.exec(heading.trim());
  if (!match?.[1]) return null;
  const marker = bareMarker(match[1]);
  // Markdown punctuation (`**`, `-`, `#`) is not a marker; a pictograph or symbol is.
  return /[\p{Extended_Pictographic}\p{So}]/u.test(marker) ? marker : null;
}

function words(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Whether a document heading stands for a skill heading. */
export function headingMatches(skillHeading: string, documentHeading: string): boolean {
  const marker = headingMarker(skillHeading);
  if (marker !== null) return bareMarker(documentHeading).includes(marker);
  const wanted = words(skillHeading);
  const found = words(documentHeading);
  if (wanted === '' || found === '') return false;
  return found === wanted || found.startsWith(`${wanted} `) || wanted.startsWith(`${found} `);
}

/** The skill's first-steps section: the one marked 🔔, else the last one (the skill's order ends with it). */
export function firstStepsHeading(skillSections: readonly string[]): string | null {
  return skillSections.find((heading) => headingMarker(heading) === '🔔') ?? skillSections.at(-1) ?? null;
}

/** The document section that stands for a skill heading (the first that matches), or null. */
export function findSection(sections: readonly DocumentSection[], skillHeading: string): DocumentSection | null {
  return sections.find((section) => headingMatches(skillHeading, section.heading)) ?? null;
}
