// The handoff skill in force (R5–R7): project > user > bundled, else the built-in minimal template.
// A candidate that exists but cannot be used (unreadable, bad frontmatter, no sections) is skipped
// with a log line saying why; the handoff never fails for a skill.
import fs from 'node:fs/promises';
import type { Logger } from 'pino';
import { bundledSkillPath, userSkillPath, type Env } from '../paths.js';
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
  /** `<project>/.ai-zen/skills/handoff/SKILL.md` (ProjectPaths.projectSkill); omit outside a project. */
  readonly projectSkillPath?: string;
  readonly env?: Env;
  readonly bundledPath?: string;
  /** Release/sync the user copy first (R5). Default true. */
  readonly bootstrap?: boolean;
  readonly logger?: Logger;
}

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
  if (options.projectSkillPath) candidates.push({ source: 'project', path: options.projectSkillPath });
  candidates.push({ source: 'user', path: userSkillPath(env) }, { source: 'bundled', path: bundledPath });

  const skipped: { source: SkillSource; path: string; reason: string }[] = [];
  for (const candidate of candidates) {
    let text: string;
    try {
      text = await fs.readFile(candidate.path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A missing project or user copy is the normal case, not worth a warning.
      const reason = code === 'ENOENT' ? 'missing' : `unreadable: ${code ?? String(error)}`;
      skipped.push({ ...candidate, reason });
      if (code !== 'ENOENT' || candidate.source === 'bundled') {
        options.logger?.warn({ skill: candidate.path, source: candidate.source, reason }, 'handoff skill skipped');
      }
      continue;
    }
    const parsed = parseSkill(text);
    if (!parsed.ok) {
      skipped.push({ ...candidate, reason: parsed.reason });
      options.logger?.warn({ skill: candidate.path, source: candidate.source, reason: parsed.reason }, 'handoff skill skipped');
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
