// What `npm pack` would publish holds no benchmark code, and nothing it ships
// imports a package that an install of ai-zen would not bring (a devDependency, or nothing at all).
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface PackedFile {
  readonly path: string;
}

async function packedFiles(): Promise<string[]> {
  // --ignore-scripts: `prepack` would build again; `npm test` has built dist/ already.
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  const [report] = JSON.parse(stdout) as [{ files: PackedFile[] }];
  return report.files.map((file) => file.path);
}

/** The package a bare import specifier names (`@scope/name/sub` → `@scope/name`), or null for relative and built-in ones. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return null;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
  return builtinModules.includes(name) ? null : name;
}

/** Static, dynamic and require imports, as the TypeScript scanner finds them (no regex over string literals). */
function importedSpecifiers(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);
}

describe('the published package', () => {
  it("npm pack --dry-run holds the CLIs, pi's extension and no benchmark code", async () => {
    const files = await packedFiles();
    expect(files).toContain('dist/cli/ai-zen.js');
    expect(files).toContain('dist/cli/ai-zen-daemon.js');
    // install-hooks pi copies it from the package.
    expect(files).toContain('hooks/pi/ai-zen-hooks.ts');
    expect(files.filter((file) => /bench/i.test(file))).toEqual([]);
  });

  it('ships what runs: no source map or declaration file (nothing imports the package as a library), and no prepare script (npm warns of it on every global install)', async () => {
    const files = await packedFiles();
    expect(files.filter((file) => file.endsWith('.map') || file.endsWith('.d.ts'))).toEqual([]);
    const manifest = JSON.parse(await fs.readFile(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(manifest.scripts.prepare).toBeUndefined();
  });

  it('nothing shipped imports a devDependency or an undeclared package', async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const allowed = new Set(Object.keys(manifest.dependencies));
    const files = (await packedFiles()).filter((file) => file.endsWith('.js'));
    const wrong: string[] = [];
    for (const file of files) {
      const source = await fs.readFile(path.join(root, file), 'utf8');
      for (const specifier of importedSpecifiers(source)) {
        const name = packageOf(specifier);
        if (name !== null && !allowed.has(name)) wrong.push(`${file} imports ${specifier}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
