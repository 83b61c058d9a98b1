import { defineConfig } from 'vitest/config';

// `.ci/run` only: installs every pinned real client into the test cache in the background while CI
// builds and lints (test/support/preinstall-agent-clients.task.ts). The default run never includes it.
export default defineConfig({
  test: {
    include: ['test/support/preinstall-agent-clients.task.ts'],
    pool: 'forks',
    maxWorkers: 1,
  },
});
