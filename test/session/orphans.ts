// What a kill -9 mid-migration can leave for good, as a test sees it from the files alone.
import { promises as fs } from 'node:fs';
import path from 'node:path';

interface Line {
  readonly type: string;
  readonly id?: string;
  readonly previousId?: string | null;
  readonly path?: string;
  readonly newId?: string;
}

/** Documents no line names, and sessions with a predecessor that no `migrated` line points to. */
export async function orphans(root: string): Promise<{ documents: string[]; successors: string[] }> {
  const sessionsDir = path.join(root, '.ai-zen', 'sessions');
  const sessions = new Map<string, Line[]>();
  for (const name of (await fs.readdir(sessionsDir)).filter((entry) => entry.endsWith('.jsonl'))) {
    const text = await fs.readFile(path.join(sessionsDir, name), 'utf8');
    sessions.set(
      name.slice(0, -'.jsonl'.length),
      text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Line),
    );
  }
  const lines = [...sessions.values()].flat();
  const named = new Set(lines.filter((line) => line.type === 'handoff' || line.type === 'migrated').map((line) => line.path));
  const pointedTo = new Set(lines.filter((line) => line.type === 'migrated').map((line) => line.newId));
  const documents = (await fs.readdir(path.join(root, '.ai-zen', 'handoffs')).catch(() => [] as string[]))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `.ai-zen/handoffs/${name}`)
    .filter((doc) => !named.has(doc));
  const successors = [...sessions].filter(([id, content]) => content[0]?.previousId && !pointedTo.has(id)).map(([id]) => id);
  return { documents, successors };
}
