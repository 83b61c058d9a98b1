// Captured facts of a clean repo on `main` with no commit, no upstream and no port probe: what the
// pure document tests hand the offline executor when the facts are not what they test.
import type { Facts } from '../../src/probe/facts.js';

export function cleanFacts(root: string): Facts {
  return {
    capturedAt: 'now',
    root,
    git: {
      known: true,
      value: {
        branch: 'main',
        head: null,
        staged: [],
        unstaged: [],
        untracked: [],
        upstream: null,
        ahead: null,
        behind: null,
        operation: null,
      },
    },
    ports: { known: false, why: 'n/a' },
  };
}
