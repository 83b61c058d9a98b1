// The README is short and points into docs/ and ARCHITECTURE.md. A link that names a file
// which is not there (a section moved, a file renamed) sends a newcomer nowhere: every relative link in
// the README, docs/ and ARCHITECTURE.md must name a file or folder of the repository, and every
// `#anchor` a heading of the file it points into.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

async function markdownFiles(): Promise<string[]> {
  const docs = await fs.readdir(path.join(root, 'docs')).catch(() => [] as string[]);
  return ['README.md', 'ARCHITECTURE.md', 'hooks/README.md', ...docs.filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

async function anchorsIn(file: string): Promise<Set<string>> {
  const text = await fs.readFile(file, 'utf8');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]!)));
}

describe('the README and docs link to what is there', () => {
  it('every relative link in README.md, ARCHITECTURE.md and docs/ names an existing file, and every anchor a heading', async () => {
    const broken: string[] = [];
    for (const file of await markdownFiles()) {
      const text = await fs.readFile(path.join(root, file), 'utf8');
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1]!;
        if (/^(https?:|mailto:)/.test(target)) continue;
        const [where, anchor] = target.split('#') as [string, string | undefined];
        const resolved = where === '' ? path.join(root, file) : path.resolve(path.dirname(path.join(root, file)), where);
        const exists = await fs.stat(resolved).then(
          () => true,
          () => false,
        );
        if (!exists) broken.push(`${file}: ${target} (no such file)`);
        else if (anchor !== undefined && resolved.endsWith('.md') && !(await anchorsIn(resolved)).has(anchor))
          broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
