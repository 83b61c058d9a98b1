// ARCHITECTURE.md's map is the one the boundary check enforces. The table of
// layers there and the layers in .dependency-cruiser.cjs must name the same folders in the same
// order, and every top-level folder of src/ must be on the map; the same for the sub-folders of
// daemon/ and their table "Inside daemon/", and of cli/ and "Inside cli/".
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The scripts rolldown.config.ts bundles, whose built paths package.json's bin and the hook shim name. */
const ENTRY_SCRIPTS = ['ai-zen.ts', 'ai-zen-daemon.ts', 'ai-zen-hook.ts', 'ai-zen-statusline.ts'];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Layer {
  readonly name: string;
  readonly paths: readonly string[];
  readonly independent?: boolean;
}

/** A rule path as the map writes it: `src/fs/` → `fs/`, `src/events\.ts$` → `events.ts`, the base pattern → `src/*.ts`. */
function asWritten(rulePath: string): string {
  if (rulePath.includes('(?!')) return 'src/*.ts';
  return rulePath
    .replace(/^src\//, '')
    .replace(/\\\./g, '.')
    .replace(/\$$/, '');
}

/** The first table after `heading` in ARCHITECTURE.md: its layers, their folders (in backquotes), and which are alone. */
async function mapRows(
  heading = '## Folders and the way dependencies point',
): Promise<{ name: string; folders: string[]; alone: boolean }[]> {
  const text = await fs.readFile(path.join(root, 'ARCHITECTURE.md'), 'utf8');
  expect(text).toContain(heading);
  const lines = text.slice(text.indexOf(heading)).split('\n');
  const header = lines.findIndex((line) => line.startsWith('| layer'));
  const end = lines.findIndex((line, index) => index > header && !line.startsWith('|'));
  const table = lines.slice(header + 2, end);
  return table.map((row) => {
    const [layer = '', folders = ''] = row
      .split('|')
      .slice(1)
      .map((cell) => cell.trim());
    return {
      name: layer.replace(/\s*\(alone\)$/, ''),
      alone: layer.endsWith('(alone)'),
      folders: [...folders.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? ''),
    };
  });
}

describe('the map is the check', () => {
  it('ARCHITECTURE.md names the layers and folders that .dependency-cruiser.cjs enforces, in the same order', async () => {
    const { layers } = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs')) as { layers: readonly Layer[] };
    const fromRules = layers.map((layer) => ({ name: layer.name, alone: layer.independent === true, folders: layer.paths.map(asWritten) }));
    expect(await mapRows()).toEqual(fromRules);
  });

  it('every top-level folder of src/ is on the map', async () => {
    const { layers } = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs')) as { layers: readonly Layer[] };
    const placed = new Set(layers.flatMap((layer) => layer.paths.map(asWritten)));
    const entries = await fs.readdir(path.join(root, 'src'), { withFileTypes: true });
    const unplaced = entries.filter((entry) => entry.isDirectory() && !placed.has(`${entry.name}/`)).map((entry) => entry.name);
    expect(unplaced).toEqual([]);
  });

  it('ARCHITECTURE.md names the sub-folders of daemon/ that .dependency-cruiser.cjs enforces, in the same order', async () => {
    const { daemonLayers } = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs')) as {
      daemonLayers: readonly Layer[];
    };
    const fromRules = daemonLayers.map((layer) => ({
      name: layer.name,
      alone: layer.independent === true,
      folders: layer.paths.map((rulePath) => rulePath.replace(/^src\/daemon\//, '')),
    }));
    expect(await mapRows('### Inside daemon/')).toEqual(fromRules);
  });

  it('everything in src/daemon/ sits in a sub-folder on the map', async () => {
    const { daemonLayers } = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs')) as {
      daemonLayers: readonly Layer[];
    };
    const placed = new Set(daemonLayers.flatMap((layer) => layer.paths.map((rulePath) => rulePath.replace(/^src\/daemon\//, ''))));
    const entries = await fs.readdir(path.join(root, 'src', 'daemon'), { withFileTypes: true });
    expect(entries.filter((entry) => !entry.isDirectory() || !placed.has(`${entry.name}/`)).map((entry) => entry.name)).toEqual([]);
  });

  it('ARCHITECTURE.md names the layers inside cli/ that .dependency-cruiser.cjs enforces, in the same order', async () => {
    const { cliLayers } = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs')) as { cliLayers: readonly Layer[] };
    const fromRules = cliLayers.map((layer) => ({
      name: layer.name,
      alone: layer.independent === true,
      // The entry scripts' pattern (`[^/]+\.ts$`) is written `*.ts` on the map.
      folders: layer.paths.map((rulePath) => rulePath.replace(/^src\/cli\//, '').replace('[^/]+\\.ts$', '*.ts')),
    }));
    expect(await mapRows('### Inside cli/')).toEqual(fromRules);
  });

  it('src/cli/ holds its folders on the map and the four scripts people and agents start, nothing else', async () => {
    const { cliLayers } = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs')) as { cliLayers: readonly Layer[] };
    const placed = new Set(cliLayers.flatMap((layer) => layer.paths.map((rulePath) => rulePath.replace(/^src\/cli\//, ''))));
    const entries = await fs.readdir(path.join(root, 'src', 'cli'), { withFileTypes: true });
    const loose = entries.filter((entry) => (entry.isDirectory() ? !placed.has(`${entry.name}/`) : !ENTRY_SCRIPTS.includes(entry.name)));
    expect(loose.map((entry) => entry.name)).toEqual([]);
  });
});
