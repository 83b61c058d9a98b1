// The handoff skill in force (R5–R7): project > user > bundled, else the built-in minimal template.
// A candidate that exists but cannot be used (unreadable, not a regular file, too large, bad
// frontmatter, no sections) is skipped with a log line saying why; the handoff never fails for a
// skill. The project's skill is a cloned repo's text going into a prompt that has `exec` and into
// Claude Code's Stop reason: it is used only in a repo the user trusts.
import type { Logger } from 'pino';
import { allowsProjectChoices, checkTrust, SKILL_MAX_BYTES, TRUST_COMMAND } from '../config/trust.js';
import { readRegularFile } from '../fs/read-regular-file.js';
import { bundledSkillPath, projectPaths, userSkillPath, type Env } from '../paths.js';
import { bootstrapUserSkill } from './bootstrap-skill.js';
import { MINIMAL_TEMPLATE } from './minimal-template.js';
import { parseSkill, sectionHeadings } from './parse-skill.js';

export type SkillSource = 'project' | 'user' | 'bundled' | 'built-in';

export interface HandoffSkill {
  readonly source: SkillSource;
  /** The file it came from; null for the built-in template. */
  readonly path: string | null;
  /** The Markdown body: what is injected into the handoff instruction (R7). */
  readonly body: string;
  /** The body's `## ` headings: the document's sections, in order (X1 takes them from here). */
  readonly sections: readonly string[];
  readonly version: string | null;
  /** Why earlier candidates were passed over (also logged). */
  readonly skipped: readonly { readonly source: SkillSource; readonly path: string; readonly reason: string }[];
}

export interface LoadSkillOptions {
  /** The project root, whose `.ai-zen/skills/handoff/SKILL.md` is used if the repo is trusted; omit outside a project. */
  readonly projectRoot?: string;
  readonly env?: Env;
  readonly bundledPath?: string;
  /** Release/sync the user copy first (R5). Default true. */
  readonly bootstrap?: boolean;
  readonly logger?: Logger;
  /** How a skill file is read (default readRegularFile): a test swaps a file at exactly this read. */
  readonly readFile?: typeof readRegularFile;
}

// The cap is the trust check's too: it reads the skill the same way when it is not handed the bytes.
export { SKILL_MAX_BYTES };

export function builtInSkill(skipped: HandoffSkill['skipped'] = []): HandoffSkill {
  const body = MINIMAL_TEMPLATE.trim();
  return { source: 'built-in', path: null, body, sections: sectionHeadings(body), version: null, skipped };
}

export async function loadHandoffSkill(options: LoadSkillOptions = {}): Promise<HandoffSkill> {
  const env = options.env ?? process.env;
  const bundledPath = options.bundledPath ?? bundledSkillPath();
  if (options.bootstrap !== false) {
    await bootstrapUserSkill({ env, bundledPath, ...(options.logger ? { logger: options.logger } : {}) });
  }

  const candidates: { source: SkillSource; path: string }[] = [];
  if (options.projectRoot) candidates.push({ source: 'project', path: projectPaths(options.projectRoot).projectSkill });
  candidates.push({ source: 'user', path: userSkillPath(env) }, { source: 'bundled', path: bundledPath });

  const skipped: { source: SkillSource; path: string; reason: string }[] = [];
  const skip = (candidate: { source: SkillSource; path: string }, reason: string) => {
    skipped.push({ ...candidate, reason });
    options.logger?.warn({ skill: candidate.path, source: candidate.source, reason }, 'handoff skill skipped');
  };
  for (const candidate of candidates) {
    const read = await (options.readFile ?? readRegularFile)(candidate.path, SKILL_MAX_BYTES);
    if (!read.ok) {
      // A missing project or user copy is the normal case, not worth a warning.
      if (read.missing && candidate.source !== 'bundled') skipped.push({ ...candidate, reason: 'missing' });
      else skip(candidate, read.missing ? 'missing' : `unreadable: ${read.reason}`);
      continue;
    }
    const text = read.bytes.toString('utf8');
    const parsed = parseSkill(text);
    if (!parsed.ok) {
      skip(candidate, parsed.reason);
      continue;
    }
    // Trust judges the very bytes read above, not a second read a swap could change in between.
    const judged = { projectSkill: read.bytes };
    if (
      candidate.source === 'project' &&
      options.projectRoot &&
      !allowsProjectChoices(await checkTrust(options.projectRoot, env, judged))
    ) {
      skip(candidate, `not used: this repo is not trusted, or its skill changed since you trusted it (trust it with: ${TRUST_COMMAND})`);
      continue;
    }
    const version = parsed.skill.frontmatter.metadata?.version;
    options.logger?.debug({ skill: candidate.path, source: candidate.source }, 'handoff skill in force');
    return {
      source: candidate.source,
      path: candidate.path,
      body: parsed.skill.body,
      sections: parsed.skill.sections,
      version: version === undefined ? null : String(version),
      skipped,
    };
  }
  options.logger?.warn(
    { reasons: skipped.map((entry) => `${entry.source}: ${entry.reason}`) },
    'no handoff skill could be read; using the built-in minimal template',
  );
  return builtInSkill(skipped);
}
