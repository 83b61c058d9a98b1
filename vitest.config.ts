import { defineConfig } from 'vitest/config';
import { SlowestFirstSequencer } from './test/support/slowest-first.js';

// Two tiers, as two projects. `npm test` runs both (everything, as CI does); `npm run test:fast` runs
// `fast` alone: the files that start no child process, a tier a developer keeps open. A file is in
// it by its name (`*.fast.test.ts`), so the tier shows where the test is read and written; its
// guard (test/support/no-child-process.ts) fails any test there that starts git, node, the CLI,
// a daemon or an agent client, so the name cannot lie — and in `npm test` too, so CI enforces it.
const FAST = 'test/**/*.fast.test.ts';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests spawn real processes, daemons and pseudo-terminals and mostly wait on them: three workers on two
    // cores keep CI well under its 15 minutes (two took 12.6 min of tests at 200 more tests, 2026-12-04).
    pool: 'forks',
    maxWorkers: 3,
    // The slowest files first (a clean clone has no cached durations to order by): none starts last.
    sequence: { sequencer: SlowestFirstSequencer },
    // Every fake model server fails the test that leaves a scripted reply unconsumed.
    setupFiles: ['test/support/replies-consumed.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: [FAST],
          setupFiles: ['test/support/no-child-process.ts'],
          // Files share a worker's modules instead of loading them afresh each: 13 s instead of 44 s
          // under load here, as most of a fast file's time was importing src/.
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'processes', include: ['test/**/*.test.ts'], exclude: [FAST, '**/node_modules/**'] },
      },
    ],
  },
});
