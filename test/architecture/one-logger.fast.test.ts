// One logger type. Every module of src/ takes pino's `Logger` (each component a child
// named after it); none declares a logger shape of its own, which is how eight of them came to be.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** What an ad-hoc logger type looks like in this code base, each with what it is called in a failure. */
const AD_HOC: readonly { readonly pattern: RegExp; readonly what: string }[] = [
  { pattern: /^\s*(export\s+)?(interface|type)\s+\w*Logger\b/, what: 'a logger type of its own' },
  {
    pattern: /\b(trace|debug|info|warn|error|fatal)\??\(\w+: (object|Record<[^>]*>|unknown), \w+: string\): void/,
    what: 'an inline logger shape',
  },
  { pattern: /Pick<Logger\b/, what: 'a part of pino’s Logger' },
  { pattern: /import\b[^;]*\bLogger\b[^;]*from '(?!pino')[^']*'/, what: 'Logger imported from elsewhere than pino' },
];

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await fs.readdir(folder, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) return sourceFiles(full);
      return Promise.resolve(entry.name.endsWith('.ts') ? [full] : []);
    }),
  );
  return nested.flat();
}

describe('one logger type', () => {
  it("no module of src/ declares a logger type of its own: each takes pino's Logger", async () => {
    const found: string[] = [];
    for (const file of await sourceFiles(src)) {
      const lines = (await fs.readFile(file, 'utf8')).split('\n');
      lines.forEach((line, index) => {
        for (const { pattern, what } of AD_HOC) {
          if (pattern.test(line)) found.push(`${path.relative(src, file)}:${index + 1} ${what}: ${line.trim()}`);
        }
      });
    }
    expect(found).toEqual([]);
  });
});
