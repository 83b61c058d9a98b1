// The `.ai-zen/.gitignore` ai-zen keeps in a project, so `git add -A` never commits transcripts or
// logs. Written by `ai-zen`, `ai-zen-daemon start`, and again by the running daemon when someone
// removed `.ai-zen` under it (`rm -rf .ai-zen`, `git clean -fdx`: issue 11 §6).
import path from 'node:path';
import type { Logger } from 'pino';
import type { ProjectPaths } from '../paths.js';
import { writeFileInside } from './safe-write.js';

// Sessions and logs are this machine's; handoff documents are meant to be reviewed and committed.
export const GITIGNORE = `# Written by ai-zen. Sessions and logs stay local; handoffs/ is meant to be committed.
sessions/
logs/
latest-session.json
`;

/** Writes `.ai-zen/.gitignore` unless one is there (never over the user's); true when it wrote it. */
export async function ensureGitignore(paths: ProjectPaths, logger: Logger): Promise<boolean> {
  try {
    await writeFileInside(paths.root, path.join(paths.aiZen, '.gitignore'), GITIGNORE, { exclusive: true });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') logger.warn({ err: error }, 'could not write .ai-zen/.gitignore');
    return false;
  }
}
