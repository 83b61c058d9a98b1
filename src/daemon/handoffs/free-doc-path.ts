// A handoff document's path that nothing is at yet: the agent (or a fork of its session) creates the file.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { handoffDocName, type DocPath } from '../../handoff/doc-path.js';

/** A document path nothing is at yet (the agent creates the file). */
export async function freeDocPath(root: string, sessionId: string, date: Date): Promise<DocPath> {
  const folder = path
    .relative(root, path.join(root, '.ai-zen', 'handoffs'))
    .split(path.sep)
    .join('/');
  for (let attempt = 1; attempt < 100; attempt += 1) {
    const relative = `${folder}/${handoffDocName(date, sessionId, attempt)}`;
    const absolute = path.join(root, relative);
    try {
      await fs.lstat(absolute);
    } catch {
      return { relative, absolute };
    }
  }
  throw new Error('no free handoff document name');
}
