// Parse a handoff SKILL.md: frontmatter (YAML only) and body, and the body's `## ` section headings.
// A SKILL.md can come from a cloned repo (R6), so parsing it must never run code: gray-matter
// evaluates `---js` frontmatter with eval and caches parses made without options, so we always
// pass options whose JavaScript and CoffeeScript engines refuse, and accept YAML only.
import matter from 'gray-matter';
import { z } from 'zod';

export const SkillFrontmatter = z.looseObject({
  name: z.string().optional(),
  description: z.string().optional(),
  metadata: z
    .looseObject({
      version: z.union([z.string(), z.number()]).optional(),
      // The spec writes `custom: "true"`; a bare YAML `true` is honoured too, so that a user who
      // meant to keep their file never loses it to a sync.
      custom: z.union([z.string(), z.boolean()]).optional(),
    })
    .optional(),
});
export type SkillFrontmatter = z.infer<typeof SkillFrontmatter>;

export interface ParsedSkill {
  readonly frontmatter: SkillFrontmatter;
  readonly body: string;
  /** The body's level-2 headings, in order: the document's sections (R7, X1). */
  readonly sections: readonly string[];
}

export type ParseSkillResult = { readonly ok: true; readonly skill: ParsedSkill } | { readonly ok: false; readonly reason: string };

function refuseCode(language: string): () => never {
  return () => {
    throw new Error(`${language} frontmatter is not allowed in a skill (it would run code)`);
  };
}

const noCode = { parse: refuseCode('JavaScript') };
const noCoffee = { parse: refuseCode('CoffeeScript') };

/** Fresh options on every call: passing options also keeps gray-matter's by-string cache out of the way. */
function safeMatterOptions() {
  return {
    language: 'yaml',
    engines: { js: noCode, javascript: noCode, coffee: noCoffee, coffeescript: noCoffee, cson: noCoffee },
  };
}

const YAML_LANGUAGES = new Set(['', 'yaml', 'yml']);

export function parseSkill(text: string): ParseSkillResult {
  const normalised = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  if (!normalised.startsWith('---')) return { ok: false, reason: 'no frontmatter (the file must start with ---)' };
  const language = matter.language(normalised, safeMatterOptions()).name.toLowerCase();
  if (!YAML_LANGUAGES.has(language)) return { ok: false, reason: `frontmatter language "${language}" is not allowed (YAML only)` };

  let parsed: { data: unknown; content: string };
  try {
    parsed = matter(normalised, safeMatterOptions());
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { ok: false, reason: `bad frontmatter: ${message}` };
  }
  const frontmatter = SkillFrontmatter.safeParse(parsed.data ?? {});
  if (!frontmatter.success) {
    const issue = frontmatter.error.issues[0];
    return { ok: false, reason: `bad frontmatter: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}` };
  }
  const body = parsed.content.trim();
  const sections = sectionHeadings(body);
  if (sections.length === 0) return { ok: false, reason: 'the body has no "## " section headings' };
  return { ok: true, skill: { frontmatter: frontmatter.data, body, sections } };
}

/** The `## ` headings of a Markdown body, outside fenced code blocks, without the `## `. */
export function sectionHeadings(body: string): string[] {
  const headings: string[] = [];
  let fence: string | null = null;
  for (const line of body.split('\n')) {
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch?.[1]) {
      const marker = fenceMatch[1];
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const heading = /^ {0,3}## +(.+?)\s*$/.exec(line);
    if (heading?.[1]) headings.push(heading[1]);
  }
  return headings;
}

/** Whether the user marked their copy as theirs (R5): never overwritten by a sync. */
export function isCustom(frontmatter: SkillFrontmatter): boolean {
  const custom = frontmatter.metadata?.custom;
  return custom === true || (typeof custom === 'string' && custom.trim().toLowerCase() === 'true');
}
