// The commands people and agents start, bundled: `npm run build` compiles src/ with tsc into dist/,
// then this rewrites the four entry files in dist/cli/ as bundles (shared code in chunks beside them).
// Why: Node 20 loads an ES module at ~0.5 ms of CPU each, and `ai-zen --help` loaded 689 of them
// (ours, openai's, zod's): 0.74 s of CPU before a command ran, paid again by every hook an agent
// fires, every `ai-zen -p`, every daemon query. Bundled it is 0.28 s. The rest of dist/ stays as tsc
// wrote it (the benchmark and the library imports use it); chunks sit in dist/cli so that a path
// built from a module's own location (the daemon script, the shim's lean entries) stays the same.
import { createRequire } from 'node:module';
import path from 'node:path';
import { defineConfig } from 'rolldown';

const ENTRIES = ['ai-zen', 'ai-zen-daemon', 'ai-zen-hook', 'ai-zen-statusline'];
/** What the agent waits on every turn: the shim runs their `.cjs` (below) when it is there. */
const LEAN = ['ai-zen-hook', 'ai-zen-statusline'];
/**
 * jsonc-parser's ES build: its package main is a UMD file whose `require`s of its own parts a bundle
 * cannot follow (the bundled command failed with "Cannot find module './impl/format'"). Node, running
 * tsc's dist/, loads the UMD file as CommonJS.
 */
const JSONC_PARSER_ESM = path.join(
  path.dirname(createRequire(import.meta.url).resolve('jsonc-parser/package.json')),
  'lib',
  'esm',
  'main.js',
);
/** What a lean entry loads only on a rare path, left out of its file: the full hook path (no daemon answers), an entry of its own, and the child-process runner (the statusline's --chain), tsc's file. */
const LATER: readonly [RegExp, string][] = [
  [/(^|\/)hook-answer\.js$/, './hook-answer.js'],
  [/(^|\/)run-process\.js$/, '../run-process.js'],
];

export default [
  // The lean entries once more, each one CommonJS file with no chunk: a CommonJS file starts ~8% of a
  // bare node start faster than an ES module graph (no module wrapping of each import, no async
  // loader), which is what separates a hook from a bare `node` (bench item h). Built first, from
  // tsc's files, before the bundles below replace them.
  ...LEAN.map((name) =>
    defineConfig({
      input: { [name]: `dist/cli/${name}.js` },
      platform: 'node',
      plugins: [
        {
          name: 'load-later',
          resolveId: (source) => {
            const later = LATER.find(([pattern]) => pattern.test(source));
            return later ? { id: later[1], external: true } : null;
          },
        },
        {
          // A default import of a built-in (`import path from 'node:path'`) comes out as __toESM, which
          // copies every export of fs, net, path and os onto new objects on every run: the built-in
          // itself serves as the default, through an object made at once.
          name: 'builtin-as-default',
          renderChunk: (code) => code.replace(/^(node_\w+) = __toESM\(\1, 1\);$/gm, '$1 = { __proto__: $1, default: $1 };'),
        },
      ],
      output: { dir: 'dist/cli', format: 'cjs', entryFileNames: '[name].cjs', codeSplitting: false, sourcemap: false },
    }),
  ),
  defineConfig({
    input: { ...Object.fromEntries(ENTRIES.map((name) => [name, `dist/cli/${name}.js`])), 'hook-answer': 'dist/cli/daemon/hook-answer.js' },
    platform: 'node',
    // re2js runs in the search worker, which loads it by path (bounded-search.ts): it stays a package;
    // so does libsql, whose native part is a platform package it finds beside itself.
    external: ['re2js', 'libsql'],
    resolve: { alias: { 'jsonc-parser': JSONC_PARSER_ESM } },
    // gray-matter's `---js` engine calls eval; parse-skill.ts replaces that engine with one that refuses.
    checks: { eval: false },
    output: {
      dir: 'dist/cli',
      format: 'esm',
      entryFileNames: '[name].js',
      chunkFileNames: 'bundled-[hash].js',
      sourcemap: false,
    },
  }),
];
