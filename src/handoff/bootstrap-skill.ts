// Release and sync the user's copy of the handoff skill (R5): `$AI_ZEN_HOME/skills/handoff/SKILL.md`.
// Absent → written from the bundled copy. Present and ours (no `metadata.custom: "true"`) → brought
// up to the bundled version when it differs, so template improvements reach existing users.
// Marked custom → the user's, never touched. Unparseable → left alone too: it may be a user's
// half-finished edit, and losing it is worse than running on the bundled copy (which then wins, R6).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { aiZenHome, bundledSkillPath, userSkillPath, type Env } from '../paths.js';
import { writeFileInside } from '../fs/safe-write.js';
import { isCustom, parseSkill, type SkillFrontmatter } from './parse-skill.js';

function skillVersion(frontmatter: SkillFrontmatter): string | null {
  const version = frontmatter.metadata?.version;
  return version === undefined ? null : String(version);
}

/** Dotted numeric versions ("1", "1.2", "2.0.1"); a part that is not a number counts as 0. */
export function compareVersions(a: string, b: string): number {
  const left = a.split('.').map((part) => Number.parseInt(part, 10) || 0);
  const right = b.split('.').map((part) => Number.parseInt(part, 10) || 0);
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

export type BootstrapAction = 'created' | 'updated' | 'up-to-date' | 'kept-custom' | 'kept-newer' | 'kept-unparseable' | 'skipped';

export interface BootstrapResult {
  readonly action: BootstrapAction;
  readonly path: string;
  /** Why it was kept or skipped, for the log. */
  readonly reason?: string;
}

export interface BootstrapSkillOptions {
  readonly env?: Env;
  readonly bundledPath?: string;
  readonly logger?: Logger;
}

function errorLine(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
}

/** Never throws: a skill that cannot be synced only costs a log line (R7: the handoff never fails for it). */
export async function bootstrapUserSkill(options: BootstrapSkillOptions = {}): Promise<BootstrapResult> {
  const env = options.env ?? process.env;
  const target = userSkillPath(env);
  const result = await sync(target, env, options.bundledPath ?? bundledSkillPath());
  const log = options.logger;
  if (result.action === 'created' || result.action === 'updated')
    log?.info({ skill: target, action: result.action }, 'handoff skill synced');
  else if (result.reason) log?.warn({ skill: target, action: result.action, reason: result.reason }, 'handoff skill not synced');
  else log?.debug({ skill: target, action: result.action }, 'handoff skill checked');
  return result;
}

async function sync(target: string, env: Env, bundledPath: string): Promise<BootstrapResult> {
  let bundled: string;
  try {
    bundled = await fs.readFile(bundledPath, 'utf8');
  } catch (error) {
    return { action: 'skipped', path: target, reason: `bundled skill unreadable: ${errorLine(error)}` };
  }
  // A damaged package must not spread its damage to the user's copy.
  const bundledParse = parseSkill(bundled);
  if (!bundledParse.ok) return { action: 'skipped', path: target, reason: `bundled skill invalid: ${bundledParse.reason}` };

  let existing: string | null = null;
  try {
    existing = await fs.readFile(target, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      return { action: 'skipped', path: target, reason: `user skill unreadable: ${errorLine(error)}` };
    }
  }

  if (existing !== null) {
    const parsed = parseSkill(existing);
    if (!parsed.ok) return { action: 'kept-unparseable', path: target, reason: parsed.reason };
    if (isCustom(parsed.skill.frontmatter)) return { action: 'kept-custom', path: target };
    if (existing === bundled) return { action: 'up-to-date', path: target };
    // Only upward: an older ai-zen must not overwrite the copy a newer one released.
    const installed = skillVersion(parsed.skill.frontmatter);
    const ours = skillVersion(bundledParse.skill.frontmatter);
    if (installed !== null && ours !== null && compareVersions(installed, ours) > 0) {
      return { action: 'kept-newer', path: target, reason: `the user skill is version ${installed}, newer than this ai-zen's ${ours}` };
    }
  }

  try {
    const home = aiZenHome(env);
    await fs.mkdir(home, { recursive: true });
    const realHome = await fs.realpath(home);
    await writeFileInside(realHome, path.relative(home, target), bundled);
  } catch (error) {
    return { action: 'skipped', path: target, reason: `could not write the user skill: ${errorLine(error)}` };
  }
  return { action: existing === null ? 'created' : 'updated', path: target };
}
