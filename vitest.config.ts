import { defineConfig } from 'vitest/config';
import { SlowestFirstSequencer } from './test/support/slowest-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests spawn real processes, daemons and pseudo-terminals and mostly wait on them: three workers on two
    // cores keep CI well under its 15 minutes (two took 12.6 min of tests at 200 more tests, 2026-12-04).
    pool: 'forks',
    maxWorkers: 3,
    // The slowest files first (a clean clone has no cached durations to order by): none starts last.
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
