import { defineConfig } from 'vitest/config';

// `npm run bench:record`: the recorder of the real clients' transcripts (test/recorder/), which the
// default run (test/**/*.test.ts) never includes: it rewrites committed fixtures and takes minutes.
export default defineConfig({
  test: {
    include: ['test/recorder/**/*.record.ts'],
    pool: 'forks',
    maxWorkers: 1,
  },
});
