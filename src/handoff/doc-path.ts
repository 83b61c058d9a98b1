// Where a handoff document goes (R3): `.ai-zen/handoffs/<YYYYMMDD-HHmmss>-<short id>.md` (the
// short id tells sessions apart whatever their id scheme: src/short-id.ts),
// local time of the machine (Node's local time honours TZ). Computed once per handoff, and the
// name is reserved by creating the file exclusively, so a second handoff in the same second gets
// `-2`, `-3`… and never overwrites the first.
import fs from 'node:fs/promises';
import path from 'node:path';
import { AiZenError } from '../errors.js';
import { writeFileInside } from '../fs/safe-write.js';
import { projectPaths } from '../paths.js';
import { SessionId } from '../session/format.js';
import { shortId } from '../short-id.js';

export interface DocPath {
  /** Project-relative, with `/` separators: what the breakpoint message holds (R4) and the session records. */
  readonly relative: string;
  readonly absolute: string;
}

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** `YYYYMMDD-HHmmss` in local time. */
export function localStamp(date: Date): string {
  return (
    `${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}-` +
    `${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`
  );
}

/** The file name for a handoff; `attempt` ≥ 2 adds a suffix. A session id is data: it is validated, never trusted as a path. */
export function handoffDocName(date: Date, sessionId: string, attempt = 1): string {
  if (!SessionId.safeParse(sessionId).success) throw new AiZenError('session', `not a valid session id: ${JSON.stringify(sessionId)}`);
  return `${localStamp(date)}-${shortId(sessionId)}${attempt > 1 ? `-${attempt}` : ''}.md`;
}

export interface ReserveDocOptions {
  /** The project root, real path. */
  readonly root: string;
  readonly sessionId: string;
  readonly now?: () => Date;
  /** How many suffixes to try before giving up (a runaway loop is a bug, not a plan). */
  readonly maxAttempts?: number;
}

/** Compute the path once and create it empty and exclusively; the executor then fills it. */
export async function reserveHandoffDoc(options: ReserveDocOptions): Promise<DocPath> {
  const date = (options.now ?? (() => new Date()))();
  const folder = path.relative(options.root, projectPaths(options.root).handoffs).split(path.sep).join('/');
  const maxAttempts = options.maxAttempts ?? 100;
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    const relative = `${folder}/${handoffDocName(date, options.sessionId, attempt)}`;
    // Anything at the name — a file, a folder, a symlink (which the write refuses to follow) — means
    // taken: try the next suffix rather than fail the handoff.
    if (
      await fs.lstat(path.join(options.root, relative)).then(
        () => true,
        () => false,
      )
    )
      continue;
    try {
      const absolute = await writeFileInside(options.root, relative, '', { exclusive: true });
      return { relative, absolute };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
  }
  throw new AiZenError('handoff', `could not pick a free handoff document name after ${maxAttempts} tries`);
}
