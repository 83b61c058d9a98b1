// The commands people and agents start, bundled: `npm run build` compiles src/ with tsc into dist/,
// then this rewrites the four entry files in dist/cli/ as bundles (shared code in chunks beside them).
// Why: Node 20 loads an ES module at ~0.5 ms of CPU each, and `ai-zen --help` loaded 689 of them
// (ours, openai's, zod's): 0.74 s of CPU before a command ran, paid again by every hook an agent
// fires, every `ai-zen -p`, every daemon query. Bundled it is 0.28 s. The rest of dist/ stays as tsc
// wrote it (the benchmark and the library imports use it); chunks sit in dist/cli so that a path
// built from a module's own location (the daemon script, the shim's lean entries) stays the same.
import { defineConfig } from 'rolldown';

const ENTRIES = ['ai-zen', 'ai-zen-daemon', 'ai-zen-hook', 'ai-zen-statusline'];

export default defineConfig({
  input: Object.fromEntries(ENTRIES.map((name) => [name, `dist/cli/${name}.js`])),
  platform: 'node',
  // re2js runs in the search worker, which loads it by path (bounded-search.ts): it stays a package.
  external: ['re2js'],
  // gray-matter's `---js` engine calls eval; parse-skill.ts replaces that engine with one that refuses.
  checks: { eval: false },
  output: {
    dir: 'dist/cli',
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'bundled-[hash].js',
    sourcemap: false,
  },
});
