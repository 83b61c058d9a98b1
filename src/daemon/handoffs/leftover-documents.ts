// The documents a handoff that was cut short may have left (a kill -9 between writing a document and
// sealing it): in the handoffs folder, named for the session, written since the handoff began, known
// to no record and not held by git. The agent's own (self) is the one path it was asked to write.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { HANDOFF_DOC_PATH } from '../committing/handoff-doc-check.js';
import type { DocPath } from '../../handoff/doc-path.js';
import type { Env, ProjectPaths } from '../../paths.js';
import { runGit } from '../../probe/run-git.js';
import { shortId } from '../../short-id.js';
import type { BeganRecord } from './foreign-records.js';

/** Clocks of one machine: a file stamped a little before its handoff began is still its. */
const SLACK_MS = 2_000;

export async function leftoverDocuments(options: {
  readonly root: string;
  readonly paths: ProjectPaths;
  readonly env: Env;
  readonly began: BeganRecord;
  /** Documents the records name already. */
  readonly known: ReadonlySet<string>;
}): Promise<DocPath[]> {
  const { began, paths } = options;
  const folder = path.relative(paths.root, paths.handoffs).split(path.sep).join('/');
  const names = await fs.readdir(paths.handoffs).catch(() => [] as string[]);
  const since = Date.parse(began.at) - SLACK_MS;
  const candidates: DocPath[] = [];
  for (const name of names) {
    const relative = `${folder}/${name}`;
    if (options.known.has(relative)) continue;
    if (began.document !== null ? relative !== began.document : HANDOFF_DOC_PATH.exec(relative)?.[1] !== shortId(began.sessionId)) continue;
    const absolute = path.join(paths.handoffs, name);
    const stats = await fs.lstat(absolute).catch(() => null);
    if (!stats?.isFile() || stats.mtimeMs < since) continue;
    candidates.push({ relative, absolute });
  }
  if (candidates.length === 0) return [];
  // What git holds (committed or staged) is the user's now.
  const tracked = await runGit(paths.root, ['ls-files', '-z', '--', folder], { env: options.env });
  if (!tracked.ok) return [];
  const inGit = new Set(tracked.stdout.split('\0'));
  return candidates.filter((doc) => !inGit.has(doc.relative)).sort((a, b) => a.relative.localeCompare(b.relative));
}
