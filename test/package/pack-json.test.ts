// `npm pack --json` is read by programs (release scripts, the global-install test): its stdout must
// be the JSON report alone, even though `prepack` builds first and the build prints a chunk table.
// Run in a copy of the sources, so the build it starts never replaces the dist/ other tests run.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** What the build reads, and what "files" ships. */
const SOURCES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'rolldown.config.ts', 'src'];

describe('the package as npm pack makes it', () => {
  it('npm pack --json --dry-run builds through prepack, and its stdout is only the JSON report: the commands, no map or declaration file', async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(root, 'package.json'), 'utf8')) as { files: string[] };
    const copy = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-pack-'));
    try {
      for (const name of [...SOURCES, ...manifest.files.filter((entry) => !entry.startsWith('!') && entry !== 'dist')]) {
        await fs.cp(path.join(root, name), path.join(copy, name), { recursive: true });
      }
      await fs.symlink(path.join(root, 'node_modules'), path.join(copy, 'node_modules'));
      const env: Record<string, string> = {};
      for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !/^npm_/i.test(key)) env[key] = value;
      const { stdout } = await run('npm', ['pack', '--json', '--dry-run'], { cwd: copy, env, maxBuffer: 64 << 20 });

      const [report] = JSON.parse(stdout) as [{ files: { path: string }[] }];
      const files = report.files.map((file) => file.path);
      expect(files).toContain('dist/cli/ai-zen.js');
      expect(files).toContain('dist/cli/ai-zen-daemon.js');
      expect(files.filter((file) => file.endsWith('.map') || file.endsWith('.d.ts'))).toEqual([]);
    } finally {
      await fs.rm(copy, { recursive: true, force: true });
    }
  }, 300_000);
});
