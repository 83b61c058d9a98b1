// The `.ai-zen/.gitignore` ai-zen keeps in a project, so `git add -A` never commits transcripts or
// logs. Written by `ai-zen`, `ai-zen-daemon start`, and again by the running daemon when someone
// removed `.ai-zen` under it (`rm -rf .ai-zen`, `git clean -fdx`).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ProjectPaths } from '../paths.js';
import { writeFileInside } from './safe-write.js';

const HEADER = '# Written by ai-zen. Sessions and logs stay local; handoffs/ is meant to be committed.\n';
const LOCAL = 'sessions/\nlogs/\nlatest-session.json\n';

// Sessions and logs are this machine's; handoff documents are meant to be reviewed and committed.
// The files ai-zen is in the middle of writing (safe-write.ts: a temporary `.<name>.<pid>-<hex>.tmp`
// renamed over the real one) are nobody's: a `git add -A` that listed one just before its rename
// failed with "unable to stat", or took it.
export const GITIGNORE = `${HEADER}${LOCAL}# Files ai-zen is writing (a temporary file, then renamed over the real one).\n.*.tmp\n# An agent's own document the checks refused, set aside; and this file, which ai-zen writes again wherever it runs.\nrejected/\n.gitignore\n`;

/** What ai-zen wrote before; found exactly so, it is brought up to date. A file the user changed is theirs. */
const EARLIER_GITIGNORES: readonly string[] = [
  `${HEADER}${LOCAL}`,
  `${HEADER}${LOCAL}# Files ai-zen is writing (a temporary file, then renamed over the real one).\n.*.tmp\n`,
];

/**
 * Writes `.ai-zen/.gitignore` unless one is there (never over the user's), or brings one that
 * ai-zen wrote before up to date; true when it wrote it.
 */
export async function ensureGitignore(paths: ProjectPaths, logger: Logger): Promise<boolean> {
  const file = path.join(paths.aiZen, '.gitignore');
  try {
    await writeFileInside(paths.root, file, GITIGNORE, { exclusive: true });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      logger.warn({ err: error }, 'could not write .ai-zen/.gitignore');
      return false;
    }
  }
  try {
    const present = await fs.readFile(file, 'utf8');
    if (!EARLIER_GITIGNORES.includes(present)) return false;
    await writeFileInside(paths.root, file, GITIGNORE);
    return true;
  } catch (error) {
    logger.warn({ err: error }, 'could not bring .ai-zen/.gitignore up to date');
    return false;
  }
}
